/*
 * Suite files (INI, see docs/suites.md): what to run, how often, what to
 * compare.
 */
#ifndef COORDINATOR_SUITE_H
#define COORDINATOR_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

struct ini_src;
struct suite_claim;

struct suite_metric {
	char		 name[PROTO_NAME_MAX];
	int		 higher;	/* 1: higher is better; 0: lower is */
};

struct suite_file {
	char		 name[PROTO_NAME_MAX];	/* referenced as {file:NAME} */
	char		*path;		/* as resolved: absolute
					   or relative to cwd */
	int		 line;
};

struct suite_variant {
	char		 name[PROTO_NAME_MAX];
	char		*bin;		/* may hold {os} and {arch};
					   resolved like files */
	char		*host;		/* bin = host:NAME: NAME, the host's own
					   program (nothing pushed); or NULL */
	size_t		 nargs;		/* argv placed before the benchmark's */
	char		**args;
	size_t		 nenv;		/* "NAME=value" */
	char		**env;
	char		*settings;	/* its keys but bin as written, in
					   order, "KEY=VALUE\n" each: an A/A
					   run has the reference's; NULL
					   none */
	int		 line;		/* of the [variant.NAME] header */
};

/* A hook of a bench (prepare, setup, cleanup): an argv, no shell. */
struct suite_hook {
	size_t		 nargv;		/* 0: none */
	char		**argv;		/* argv[0] as written */
	char		*bin;		/* argv[0] resolved like
					   a variant's bin */
	char		*host;		/* or host:NAME's NAME; else NULL */
	int		 line;
};

#define SUITE_HOOK_PREPARE	0	/* as PROTO_HOOK_* */
#define SUITE_HOOK_SETUP	1
#define SUITE_HOOK_CLEANUP	2
#define SUITE_NHOOKS		3

struct suite_bench {
	char		 name[PROTO_NAME_MAX];
	size_t		 nargs;		/* argv after the program;
					   may hold {file:NAME} */
	char		**args;
	size_t		 nfiles;
	struct suite_file *files;
	size_t		 nmetrics;	/* the first one is the
					   primary metric */
	struct suite_metric *metrics;
	char		 checksum[PROTO_NAME_MAX];	/* "" when none */
	uint32_t	 timeout_ms;	/* 0: none */
	uint32_t	 threads;	/* cores it keeps busy; 0: not said */
#define SUITE_THREADS_ALL	UINT32_MAX	/* parallel = yes: every core */
#define SUITE_THREADS_MAX	4096
	struct suite_hook hooks[SUITE_NHOOKS];
	int		 line;
	char		 sweep[PROTO_NAME_MAX];	/* of a params = sweep: its
						   [bench.NAME]; "" none */
	char		*point;		/* "size=1e3 threads=4"; NULL none */
};

struct suite {
	char		*path;		/* as given */
	char		*text;		/* the whole file, as run */
	char		 name[PROTO_NAME_MAX];
	uint32_t	 rounds;	/* >= 1 */
	uint32_t	 warmup;	/* unmeasured runs of
					   each variant first */
	uint64_t	 seed;
	int		 has_seed;	/* 0: the caller picks
					   one and records it */
	double		 min_effect;	/* default 0.01 */
	size_t		 ref;		/* index of the reference variant */
	size_t		 nvariants;	/* >= 2 */
	struct suite_variant *variants;
	size_t		 nbenches;	/* >= 1 */
	struct suite_bench *benches;

	/* Measurement settings; a host's inventory entry may override some. */
	double		 max_load;	/* per core; default 1/3; 0 disables */
	uint32_t	 load_wait_s;	/* default 600 */
	uint32_t	 retries;	/* default 2 */
	char		 pin[128];	/* "" none */
	int		 subtract_floor;	/* 0 or 1; default 1 */
	char		 counters[128];	/* hardware counters, comma separated */
	uint32_t	 linger_s;	/* a detached agent waits
					   this long; 3600 */
	uint32_t	 env_pad;	/* a measured run's environment is
					   padded by 0..env_pad bytes;
					   0 off; default 4096 */
	uint32_t	 settle_ms;	/* each agent waits this long before
					   its first run; default 50 */

	size_t		 nclaims;	/* [claim.NAME] sections (below) */
	struct suite_claim *claims;

	/* rounds = auto: blocks of min_rounds, looked at after each. */
	int		 auto_rounds;	/* 0: rounds fixed */
	uint32_t	 min_rounds;	/* the first look and
					   block; default 5 */
	uint32_t	 max_rounds;	/* = rounds when auto; default 200 */
	uint32_t	 budget_s;	/* per host; 0: none */
};

#define SUITE_ENV_PAD_DEFAULT	4096
#define SUITE_SETTLE_DEFAULT	50	/* ms; docs/suites.md, settle */
#define SUITE_MIN_ROUNDS	5
#define SUITE_MAX_ROUNDS	200
#define SUITE_BUDGET_MAX	(30 * 86400)	/* seconds */

/*
 * Parses a duration such as "90s", "20m", "2h", "1d" or "600" (seconds)
 * into seconds, 1..SUITE_BUDGET_MAX. Returns 0, or -1 when it is not one.
 */
int	suite_parse_budget(const char *v, uint32_t *out);

/*
 * Parses a settle pause, "50ms", "2s" or "0", into milliseconds, at most
 * PROTO_SETTLE_MAX; a bare number other than 0 is refused (its unit would
 * be a guess). Returns 0, or -1 when it is not one.
 */
int	suite_parse_settle(const char *v, uint32_t *out);

/*
 * Parses the suite file at path. On error returns -1 and sets *cause
 * (caller frees) to a message naming the file and line, e.g.
 * "suites/x.ini:12: [bench.hash] unknown key 'arg'". Returns 0 on success.
 */
int	suite_load(const char *path, struct suite **out, char **cause);

/*
 * As suite_load, parsing text (when not NULL) as the file's content: a
 * one-line run's generated suite (oneline.c). Relative paths in it are
 * resolved as in a file at path.
 */
int	suite_load_text(const char *path, const char *text,
	    struct suite **out, char **cause);

/*
 * Parses a recorded suite's text for what its benchmarks are (names,
 * sweeps and their points) without looking for its programs and files,
 * which may live on another machine: for the report. As suite_load.
 */
int	suite_load_names(const char *path, const char *text,
	    struct suite **out, char **cause);

/* Frees a suite; NULL is ok. */
void	suite_free(struct suite *s);

/*
 * Returns arg with each {param:NAME} replaced by NAME's value at bench
 * b's point of its sweep (a variant's args hold them too; a NAME b does
 * not sweep stays as written), or NULL when memory runs out. The caller
 * frees it.
 */
char	*suite_point_subst(const struct suite_bench *b, const char *arg);

/*
 * Expands {os} and {arch} in tmpl into out. Returns 0, or -1 when out is
 * too small.
 */
int	suite_expand(const char *tmpl, const char *os, const char *arch,
	    char *out, size_t outlen);

/*
 * Splits an args value into words like a POSIX shell would without any
 * expansion: blanks separate, '…' and "…" quote, backslash escapes.
 * Returns 0, or -1 with *cause set (unterminated quote, too many words).
 */
int	suite_split(const char *value, char ***words, size_t *nwords,
	    char **cause);

/*
 * The [claim.NAME] sections (suite-claims.c): what a suite states it
 * expects of a variant. Their verdicts are coordinator/analysis/claims.h's.
 */
#define CLAIMS_MAX		64	/* [claim.NAME] sections per suite */
#define CLAIMS_BENCHES_MAX	256	/* names in one benchmarks list */

#define CLAIM_BETTER	0
#define CLAIM_WORSE	1
#define CLAIM_SAME	2

struct suite_claim {
	char		 name[PROTO_NAME_MAX];
	char		 variant[PROTO_NAME_MAX];
	char		 reference[PROTO_NAME_MAX];	/* "" the suite's */
	size_t		 nbenches;	/* 0: all */
	char		**benches;
	int		 expect;	/* CLAIM_* */
	double		 by;		/* "by >= N%": N / 100; 0 none */
	int		 line;		/* of [claim.NAME] */
	int		 variant_line, reference_line, benches_line;
	int		 expect_line;
};

/* The keys of a [claim.NAME] section, NULL-terminated (for ini_key). */
extern const char *const claims_keys[];

/*
 * Starts a claim named name[0..len) in s at src's line: checks the name
 * and that it is new. Returns the claim, or NULL with the error reported.
 */
struct suite_claim *claims_add(struct ini_src *src, struct suite *s,
	    const char *name, size_t len);

/* Takes key k (index into claims_keys) = v of claim c; reports errors. */
void	claims_key(struct ini_src *src, struct suite_claim *c, int k,
	    const char *v);

/* Checks claim c once its section ends (expect and variant given). */
void	claims_end(struct ini_src *src, struct suite_claim *c);

/*
 * Checks every claim of s against its variants and benchmarks once the
 * whole suite is read; reports the first error.
 */
void	claims_finish(struct ini_src *src, struct suite *s);

/* Frees s's claims. */
void	claims_free(struct suite *s);

/* Writes a claim's expectation: "better by >= 2%", "same". */
void	claims_expect_text(const struct suite_claim *c, char *buf,
	    size_t len);

/*
 * Returns 1 when claim c of s covers the benchmark named bench: every
 * benchmark when it names none, else those it names and the points of
 * the sweeps it names.
 */
int	claims_covers(const struct suite *s, const struct suite_claim *c,
	    const char *bench);

#endif
