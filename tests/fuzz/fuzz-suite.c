/*
 * libFuzzer target for the suite parser: each input is written to a suite
 * file in a private temporary directory and loaded; a loaded suite's bins
 * are expanded too. Build and run (see tests/fuzz/corpus-suite/ for seeds):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *	tests/fuzz/fuzz-suite.c coordinator/input/suite.c coordinator/input/ini.c \
 *	coordinator/analysis/rng.c proto/log.c $(pkg-config --cflags --libs inih) \
 *	-o /tmp/fuzz-suite
 *   /tmp/fuzz-suite -max_total_time=60 tests/fuzz/corpus-suite
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/input/suite.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	fuzz_dir[64];
static char	fuzz_path[96];

/* Removes the temporary suite file and its directory. */
static void
fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

/*
 * Creates the temporary directory once, in $TMPDIR, else /dev/shm (a file
 * is written per input: tmpfs is much faster), else /tmp; returns 0 or -1.
 */
static int
fuzz_setup(void)
{
	const char	*dirs[] = { getenv("TMPDIR"), "/dev/shm", "/tmp" };
	size_t		 i;

	if (fuzz_path[0] != '\0')
		return (0);
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (dirs[i] == NULL || dirs[i][0] == '\0' ||
		    strlen(dirs[i]) > 40)
			continue;
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/fuzz-suite.XXXXXX",
		    dirs[i]);
		if (mkdtemp(fuzz_dir) != NULL)
			break;
	}
	if (i == sizeof dirs / sizeof dirs[0])
		return (-1);
	snprintf(fuzz_path, sizeof fuzz_path, "%s/fuzz.ini", fuzz_dir);
	atexit(fuzz_cleanup);
	return (0);
}

/* Loads one input as a suite file; aborts if the result breaks a promise. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite	*s = NULL;
	char		*cause = NULL, out[256];
	FILE		*f;
	size_t		 i;

	if (fuzz_setup() != 0 || (f = fopen(fuzz_path, "wb")) == NULL)
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (suite_load(fuzz_path, &s, &cause) == 0) {
		if (cause != NULL || s->nvariants < 2 || s->nbenches < 1 ||
		    s->ref >= s->nvariants || s->rounds < 1)
			abort();	/* a loaded suite keeps its promises */
		for (i = 0; i < s->nvariants; i++)
			suite_expand(s->variants[i].bin, "linux", "x86_64", out,
			    sizeof out);
	} else if (cause == NULL || s != NULL)
		abort();
	free(cause);
	suite_free(s);
	return (0);
}
