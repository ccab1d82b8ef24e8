/* `orch run`: one suite on a set of hosts, all at once, into one record. */
#ifndef COORDINATOR_RUN_H
#define COORDINATOR_RUN_H

#include <stddef.h>
#include <stdint.h>

struct host;
struct report_exports;

struct run_opts {
	const char	*suite;		/* SUITE.ini */
	const char	*inventory;	/* --inventory, or NULL */
	struct host	*hosts;		/* resolved hosts */
	size_t		 nhosts;
	uint32_t	 rounds;	/* 0: the suite's */
	int		 auto_rounds;	/* --rounds=auto */
	uint32_t	 budget_s;	/* --budget; 0: the suite's */
	uint64_t	 seed;
	int		 has_seed;
	double		 max_load;	/* < 0: the suite's */
	uint32_t	 env_pad;	/* with has_env_pad: the suite's
					   env_pad */
	int		 has_env_pad;
	const char	*out;		/* NULL: reports/<run-id> */
	int		 fail_on;	/* GATE_*
					   (coordinator/analysis/gate.h) */
	int		 verbose;
	int		 quiet;		/* no answer on stdout */
	const char	*cmdline;	/* as typed, for the record */
	const char	*again;		/* what the resume and stop lines
					   repeat (" --inventory=..."),
					   shell-quoted; NULL none */
	const char	*again_env;	/* what goes before "orch" in
					   them ("ORCH_WORKDIR=... "); NULL
					   none */
	const char	*resume;	/* DIR of a run to resume, or NULL */
	int		 resume_foreign; /* --resume-foreign: a run DIR
					   not bound to this user */
	char		*resume_suite;	/* the suite a resume runs (set by
					   run_resume_flags; NULL: the
					   record's); the caller frees */
	const char	*suite_text;	/* a one-line run's suite (oneline.c),
					   used instead of the file suite */
	uint32_t	 warmup;	/* with has_warmup: the suite's
					   warmup */
	int		 has_warmup;
	const struct report_exports *exports;	/* also written there */
	char *const	*labels;	/* KEY=VALUE, checked; into the
					   record */
	size_t		 nlabels;
};

/*
 * Returns the hosts of the unfinished run in dir, comma separated (caller
 * frees), or NULL with *cause set.
 */
char	*run_resume_hosts(const char *dir, char **cause);

struct dataset;
struct suite;

/*
 * Checks the flags given with --resume=DIR (suite the positional SUITE.ini
 * or NULL, hosts those of --hosts or NULL) against DIR's record: one that
 * contradicts it is refused, naming the flag and what the record holds;
 * then takes from the record what shapes the plan (--max-load). A run
 * not bound to this user (run-bind.c) is refused unless
 * opts->resume_foreign; sets opts->resume_suite (see run_resume_pick_suite
 * in run-resume.c). Returns 0, or -1 with *cause set. Touches no host.
 */
int	run_resume_flags(struct run_opts *opts, const char *suite,
	    const struct host *hosts, size_t nhosts, char **cause);

/*
 * Loads the suite a resumed run started with, from path (or, for
 * run_resume_suite, the path its record names): a regular file whose text
 * is the record's, byte for byte (else the message names both SHA-256s).
 * Returns 0, or -1 with *cause set.
 */
int	run_resume_suite(const struct dataset *ds, struct suite **out,
	    char **cause);
int	run_resume_suite_at(const struct dataset *ds, const char *path,
	    struct suite **out, char **cause);

/*
 * Returns 0 when path, the suite a record of run DIR names, may be run
 * though the run is not bound to this user: an absolute path outside
 * DIR to a regular file of the user's that no one else may write; else
 * -1 with *cause saying why and to name the suite instead.
 */
int	run_resume_suite_trust(const char *dir, const char *path,
	    char **cause);

/*
 * Checks that each of hosts resumes in the workdir the record of DIR
 * says its run started in: the inventory's (or the default) is the one
 * used, and a record that says another is refused, naming the host and
 * both paths. Returns 0, or -1 with *cause set.
 */
int	run_resume_workdirs(const char *dir, const struct host *hosts,
	    size_t n, char **cause);

/*
 * Runs the suite; returns the exit code (0, 1, 2 or 3: see README.md,
 * "Exit codes").
 */
int	run_main(const struct run_opts *opts);

#endif
