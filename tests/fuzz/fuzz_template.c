/*
 * fuzz_template.c - a template, services/t@.ini: its specifiers and its
 * instances list, made into the instances it lists and one more.
 */
#include "conf.h"
#include <stdio.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf		 c;
	struct conf_tmpl	 t = { "t@", "t@.ini", NULL };
	struct svc_def		*d;
	struct buf		 b = { 0 };
	char			 name[160];
	size_t			 i;

	if ((t.text = fuzz_str(data, size)) == NULL)
		return 0;
	conf_init(&c);
	c.etc = "/nonexistent";
	if (conf_instance(&c, &t, "t@probe", &d) == 0 && d && d->instances)
		for (i = 0; d->instances[i] && i < 8; i++) {
			struct svc_def	*e;

			snprintf(name, sizeof(name), "t@%s", d->instances[i]);
			if (conf_instance(&c, &t, name, &e) == 0 && e &&
			    strcmp(e->name, name) != 0)
				__builtin_trap();
		}
	conf_errors(&c, &b);
	buf_free(&b);
	conf_free(&c);
	free(t.text);
	return 0;
}
