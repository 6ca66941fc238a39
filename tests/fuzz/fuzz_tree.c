/*
 * fuzz_tree.c - a whole tree: pidvisor.ini, then service files, split
 * on lines "---"; services are named a, b, c ... so that they can name
 * each other in requires and after.
 */
#include "conf.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf	 c;
	struct buf	 b = { 0 };
	char		*text = fuzz_str(data, size), *p, *next, name[2] = "a";
	size_t		 i, j;

	if (text == NULL)
		return 0;
	conf_init(&c);
	c.etc = "/nonexistent";
	for (p = text, i = 0; p && i < 26; p = next, i++) {
		if ((next = strstr(p, "\n---\n")) != NULL) {
			*next = '\0';
			next += 5;
		}
		if (i == 0) {
			conf_parse_sup(&c, "pidvisor.ini", p);
			continue;
		}
		name[0] = (char)('a' + i - 1);
		conf_parse_service(&c, name, name, p);
	}
	conf_check(&c);
	conf_errors(&c, &b);
	for (i = 0; i < c.ndefs; i++)
		for (j = 0; j < c.ndefs; j++)
			(void)svc_def_equal(c.defs[i], c.defs[j]);
	buf_free(&b);
	conf_free(&c);
	free(text);
	return 0;
}
