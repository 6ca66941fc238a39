/* fuzz_argv.c - the exec line splitter, and the JSON string writer. */
#include "fuzz.h"
#include "util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		**argv = NULL, *text = fuzz_str(data, size);
	const char	 *why;
	struct buf	  b = { 0 };

	if (text == NULL)
		return 0;
	if (argv_split(text, &argv, &why) == 0)
		strv_free(argv);
	buf_json_strn(&b, (const char *)data, size);
	buf_free(&b);
	free(text);
	return 0;
}
