/* fuzz_envfile.c - an env file (env_file =), as systemd quotes it. */
#include "env.h"
#include "fuzz.h"
#include "util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	**vars = NULL, err[256];
	size_t	  i;

	if (env_file_parse((const char *)data, size, "/etc/x", &vars, err,
	    sizeof(err)) == 0) {
		for (i = 0; vars && vars[i]; i++)
			if (strchr(vars[i], '=') == NULL)
				__builtin_trap();
	} else if (memchr(err, '\0', sizeof(err)) == NULL) {
		__builtin_trap();
	}
	strv_free(vars);
	return 0;
}
