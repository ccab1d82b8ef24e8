/*
 * orch compare OLD NEW: the same host, benchmark, primary metric and
 * variant across two runs, compared as two independent samples
 * (docs/evidence.md), with warnings where the runs differ in what matters.
 */
#ifndef COORDINATOR_COMPARE_H
#define COORDINATOR_COMPARE_H

#include <stdio.h>

/*
 * Compares the runs in old_dir and new_dir and writes compare.md,
 * compare.html and compare.json into out_dir, each through a temporary
 * file renamed into place; prints the answer on tty unless it is NULL.
 * fail_on is a GATE_* mask: *tripped receives one line per comparison it
 * trips (NULL when none; caller frees). Returns 0, or -1 with *cause set
 * (caller frees) when a record cannot be loaded, the runs have nothing in
 * common, or a file cannot be written.
 */
int	compare_render(const char *old_dir, const char *new_dir,
	    const char *out_dir, FILE *tty, int fail_on, char **tripped,
	    char **cause);

#endif
