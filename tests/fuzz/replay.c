/*
 * replay.c - runs a fuzz target over saved inputs, without libFuzzer:
 * the seeds and every crash a fuzzing run saved, forever after.
 *
 *   replay-TARGET FILE...    exit 0 when every input went through
 */
#include <stdio.h>

#include "fuzz.h"

int
main(int argc, char **argv)
{
	static uint8_t	buf[1 << 20];
	FILE		*f;
	size_t		 n;
	int		 i;

	for (i = 1; i < argc; i++) {
		if ((f = fopen(argv[i], "rb")) == NULL) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("%d inputs\n", argc - 1);
	return 0;
}
