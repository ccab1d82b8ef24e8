/*
 * libFuzzer target for a run's record (its loader, coordinator/store/dataset.c)
 * and the reports rendered from it: each input is written as
 * samples.msgpack in a private temporary directory and rendered with
 * report_render, which loads it, analyses it and writes samples.csv,
 * summary.json, report.md and report.html there (through temporaries
 * renamed into place). A refused input must say why and leave no temporary
 * behind. Build with `make build/fuzz/fuzz-record`; seeds in
 * tests/fuzz/corpus-record/ (the report fixtures and small records):
 *   build/fuzz/fuzz-record -max_total_time=60 tests/fuzz/corpus-record
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/gate.h"
#include "coordinator/report/report.h"
#include "coordinator/store/record.h"
#include "proto/log.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

static char	fuzz_dir[64];

/* Removes every file of the temporary directory. */
static void
fuzz_empty(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[256];

	if ((d = opendir(fuzz_dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

static void
fuzz_cleanup(void)
{
	fuzz_empty();
	rmdir(fuzz_dir);
}

/* Aborts when a temporary of report_render is left in the directory. */
static void
fuzz_no_temporaries(void)
{
	DIR		*d;
	struct dirent	*e;

	if ((d = opendir(fuzz_dir)) == NULL)
		abort();
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0)
			abort();
	}
	closedir(d);
}

/*
 * Creates the directory once, in $TMPDIR, else /dev/shm (five files are
 * written per input: tmpfs is much faster), else /tmp.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*dirs[] = { getenv("TMPDIR"), "/dev/shm", "/tmp" };
	size_t		 i;

	(void)argc;
	(void)argv;
	/* The loader warns of a record cut short: keep the output readable. */
	log_init("fuzz-record", -1);
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (dirs[i] == NULL || dirs[i][0] == '\0' ||
		    strlen(dirs[i]) > 40)
			continue;
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/fuzz-record.XXXXXX",
		    dirs[i]);
		if (mkdtemp(fuzz_dir) != NULL)
			break;
	}
	if (i == sizeof dirs / sizeof dirs[0])
		abort();
	atexit(fuzz_cleanup);
	return (0);
}

/* Renders one input as a record; aborts if a promise is broken. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	 path[128], *cause = NULL, *tripped = NULL;
	size_t	 nfailed = 0;
	FILE	*f;
	int	 r;

	fuzz_empty();
	snprintf(path, sizeof path, "%s/%s", fuzz_dir, RECORD_FILE);
	if ((f = fopen(path, "wb")) == NULL)
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	/* Every gate: its lines are built from the hostile record too. */
	r = report_render(fuzz_dir, GATE_ANY, &tripped, &nfailed, &cause);
	free(tripped);
	if (r == 0 && cause != NULL)
		abort();
	if (r != 0 && (cause == NULL || strstr(cause, RECORD_FILE) == NULL))
		abort();	/* a refusal names the record */
	free(cause);
	fuzz_no_temporaries();
	return (0);
}
