/*
 * fuzz_unit.c - a unit file's text (unit.c): read as systemd reads it;
 * every assignment has a section and a key with no '=' and no blank at
 * either end, no value has a newline; written back as "[S]\nK=V\n", it
 * reads as the same assignments.
 */
#include "fuzz.h"
#include "unit.h"
#include "util.h"

static void
ignore(void *arg, const char *file, int line, const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unit	 u = { 0 }, v = { 0 };
	struct buf	 b = { 0 };
	const char	*last = NULL;
	char		*s;
	size_t		 i, n;

	if (size > 4096 || (s = fuzz_str(data, size)) == NULL)
		return 0;
	if (unit_parse(&u, "f", s, ignore, NULL) < 0)
		goto out;
	for (i = 0; i < u.nkv; i++) {
		const struct unit_kv *kv = &u.kv[i];

		n = strlen(kv->key);
		if (kv->section == NULL || n == 0 || strchr(kv->key, '=') ||
		    strchr(" \t", kv->key[0]) || strchr(" \t", kv->key[n - 1]) ||
		    strchr(kv->value, '\n') || kv->line < 1)
			abort();
		if (last != kv->section)
			buf_printf(&b, "[%s]\n", kv->section);
		last = kv->section;
		buf_printf(&b, "%s=%s\n", kv->key, kv->value);
	}
	if (b.nomem)
		goto out;
	if (unit_parse(&v, "f", b.data ? b.data : "", ignore, NULL) < 0)
		goto out;
	/* A value that ends in a backslash goes on: not written back. */
	for (i = 0; i < u.nkv; i++)
		if ((n = strlen(u.kv[i].value)) > 0 &&
		    u.kv[i].value[n - 1] == '\\')
			goto out;
	if (v.nkv != u.nkv)
		abort();
	for (i = 0; i < u.nkv; i++)
		if (strcmp(u.kv[i].section, v.kv[i].section) ||
		    strcmp(u.kv[i].key, v.kv[i].key) ||
		    strcmp(u.kv[i].value, v.kv[i].value))
			abort();
out:
	unit_free(&u);
	unit_free(&v);
	buf_free(&b);
	free(s);
	return 0;
}
