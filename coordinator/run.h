/* `orch run`: one suite on a set of hosts, all at once, into one record. */
#ifndef COORDINATOR_RUN_H
#define COORDINATOR_RUN_H

#include <stddef.h>
#include <stdint.h>

struct host;

struct run_opts {
	const char	*suite;		/* SUITE.ini */
	struct host	*hosts;		/* resolved hosts */
	size_t		 nhosts;
	uint32_t	 rounds;	/* 0: the suite's */
	uint64_t	 seed;
	int		 has_seed;
	double		 max_load;	/* < 0: the suite's */
	const char	*out;		/* NULL: reports/<run-id> */
	int		 fail_on_worse;
	int		 verbose;
	const char	*cmdline;	/* as typed, for the record */
	const char	*resume;	/* DIR of a run to resume, or NULL */
};

/*
 * Returns the hosts of the unfinished run in dir, comma separated (caller
 * frees), or NULL with *cause set.
 */
char	*run_resume_hosts(const char *dir, char **cause);

/* Runs the suite; returns the exit code (0, 1, 2 or 3: see DESIGN.md). */
int	run_main(const struct run_opts *opts);

#endif
