/* fuzz_service.c - one service file through the parser and the checks. */
#include "conf.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf	 c;
	struct buf	 b = { 0 };
	char		*text = fuzz_str(data, size);

	if (text == NULL)
		return 0;
	conf_init(&c);
	c.etc = "/nonexistent";
	conf_parse_service(&c, "f.ini", "f", text);
	conf_check(&c);
	conf_errors(&c, &b);
	if (c.ndefs == 1)
		(void)svc_def_equal(c.defs[0], c.defs[0]);
	buf_free(&b);
	conf_free(&c);
	free(text);
	return 0;
}
