/* fuzz_envfile.c - an env file (env_file =), as systemd quotes it. */
#include <stdlib.h>

#include "env.h"
#include "fuzz.h"
#include "util.h"

/*
 * Parsed twice: into a buffer of its own and in place, as the spawn
 * child does it; both must agree, the output must fit in size + 1 bytes,
 * and every variable must be KEY=VALUE.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct env_fail	 f1 = { 0 }, f2 = { 0 };
	char		*out = malloc(size + 1), *in = malloc(size + 1), *p;
	char *const	 files[] = { "/etc/x", NULL };
	char		 msg[256];
	size_t		 n1, n2, i;
	long		 o1, o2;

	if (out == NULL || in == NULL)
		__builtin_trap();
	memcpy(in, data, size);
	o1 = env_file_parse(out, (const char *)data, size, &n1, &f1);
	o2 = env_file_parse(in, in, size, &n2, &f2);
	if (o1 != o2 || (o1 >= 0 && (n1 != n2 || (size_t)o1 > size + 1 ||
	    memcmp(out, in, (size_t)o1) != 0)))
		__builtin_trap();
	if (o1 >= 0) {
		for (i = 0, p = out; i < n1; i++, p += strlen(p) + 1)
			if (p >= out + o1 || strchr(p, '=') == NULL)
				__builtin_trap();
	} else {
		if (f1.line != f2.line || f1.col != f2.col || f1.line < 1)
			__builtin_trap();
		env_fail_format(&f1, files, msg, sizeof(msg));
		if (memchr(msg, '\0', sizeof(msg)) == NULL)
			__builtin_trap();
	}
	free(out);
	free(in);
	return 0;
}
