/*
 * One machine, one host: before anything is measured, two hosts of a run
 * that are one machine and one workdir are refused (their agents would
 * share a run lock and a journal, and the evidence would count twice);
 * two hosts of one machine with their own workdirs are said to share it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/tty.h"
#include "coordinator/run/run-int.h"
#include "proto/xmalloc.h"

/* Returns 1 when opened hosts a and b said they are one machine. */
static int
run_ident_machine(const struct host *a, const struct host *b)
{
	return (a->facts.machine[0] != '\0' &&
	    strcmp(a->facts.machine, b->facts.machine) == 0);
}

int
run_ident_check(const struct run *run, char **cause)
{
	const struct host	*a, *b;
	char			 wa[512], wb[512];
	size_t			 i, j;

	for (i = 0; i < run->nrh; i++) {
		a = run->rh[i].h;
		for (j = i + 1; j < run->nrh && run->rh[i].opened; j++) {
			b = run->rh[j].h;
			if (!run->rh[j].opened || !run_ident_machine(a, b))
				continue;
			/* An agent's path is its own bytes: made plain. */
			snprintf(wa, sizeof wa, "%s", a->facts.workdir);
			snprintf(wb, sizeof wb, "%s", b->facts.workdir);
			tty_clean(wa, 0);
			tty_clean(wb, 0);
			if (a->facts.workdir_dev == b->facts.workdir_dev &&
			    a->facts.workdir_ino == b->facts.workdir_ino) {
				xasprintf(cause, "hosts %s and %s are the same "
				    "machine and workdir (%s): their agents "
				    "would share one run lock and one journal, "
				    "and each result would count twice; name "
				    "the machine once in --hosts, or give one "
				    "of them its own workdir (workdir = in its "
				    "[host.NAME] of the inventory)", a->name,
				    b->name, wa);
				return (-1);
			}
			fprintf(stderr, "orch: hosts %s and %s share a machine "
			    "(workdirs %s and %s): their comparisons are not "
			    "independent, and the geometric mean counts them "
			    "as one machine\n", a->name, b->name, wa, wb);
		}
	}
	return (0);
}
