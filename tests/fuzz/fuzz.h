/* fuzz.h - shared by the fuzz targets: one entry point each. */
#ifndef PIDVISOR_FUZZ_H
#define PIDVISOR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The input as a NUL-terminated string (up to its first NUL). */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	char	*s = malloc(size + 1);

	if (s != NULL) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
