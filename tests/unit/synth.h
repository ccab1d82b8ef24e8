/*
 * Synthetic run records for the tests: a suite, hosts and samples filled
 * field by field as run.c would, written with the real record writer
 * (coordinator/store/record.c), loaded with record_load and analysed with
 * analysis_build and claims_attach, exactly as `orch report` does. Each
 * caller draws its own seeded noise (synth_gauss) and asserts what it
 * asserts; nothing here uses cmocka, so that the calibration
 * (tests/stats/calib.c), which is no cmocka test, links it too. Failures
 * return -1 and a reason.
 */
#ifndef TESTS_UNIT_SYNTH_H
#define TESTS_UNIT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"

#define SYNTH_VARIANTS_MAX	3	/* A, B, C */
#define SYNTH_BENCHES_MAX	10

/* A suite and the arrays it points into (so not to be copied). */
struct synth_suite {
	struct suite		s;
	struct suite_variant	vars[SYNTH_VARIANTS_MAX];
	struct suite_bench	bs[SYNTH_BENCHES_MAX];
	struct suite_metric	m[SYNTH_BENCHES_MAX];	/* bench b's metric */
	char			path[64];	/* s.path: "NAME.ini" */
	char			text[128];	/* s.text: its [suite] only */
};

/* A standard normal deviate (Box-Muller), from r. */
double	synth_gauss(struct rng *r);

/*
 * Fills ss as a suite file NAME.ini naming nvariants variants (A, B, C)
 * and nbenches benchmarks (k0, k1, ...) would parse: rounds and seed as
 * given, min_effect 0.01, each benchmark's one metric elapsed_ns (m[b]),
 * every other field zero; the caller sets what its run differs in.
 * Returns 0, or -1 when nvariants or nbenches is 0 or over the arrays.
 */
int	synth_suite(struct synth_suite *ss, const char *name,
	    size_t nvariants, size_t nbenches, uint32_t rounds,
	    uint64_t seed);

/*
 * Fills h as a host that has said hello: name, agent 0.1.0, linux on arch
 * with cpu and cores, status OK, every other field zero.
 */
void	synth_host(struct host *h, const char *name, const char *arch,
	    const char *cpu, uint32_t cores);

/* Adds a fact beyond the fixed ones. Returns 0, or -1 when full. */
int	synth_fact(struct host *h, const char *key, const char *value);

/*
 * Creates dir's record (dir must hold none) and writes its run record:
 * run_id, s and its seed, cmdline, started 2026-01-01T00:00:00Z on the nh
 * hosts h (their facts follow with record_host). Returns 0, or -1 with
 * the reason in *cause (the caller frees).
 */
int	synth_open(struct record *rec, const char *dir, const char *run_id,
	    const struct suite *s, const char *cmdline, const struct host *h,
	    size_t nh, char **cause);

/*
 * Fills smp as one successful run of a program: seq, round, attempt 1,
 * wall_ns, no metric, every other field zero.
 */
void	synth_sample(struct proto_sample *smp, uint32_t seq, uint32_t round,
	    uint64_t wall_ns);

/* The same with one metric, elapsed_ns = elapsed. */
void	synth_elapsed(struct proto_sample *smp, uint32_t seq, uint32_t round,
	    uint64_t wall_ns, double elapsed);

/*
 * Writes the end of each of the nh hosts h, then the run's end
 * (2026-01-01T00:01:00Z), and closes. Returns 0, or -1 with the reason
 * in rec->err.
 */
int	synth_close(struct record *rec, const struct host *h, size_t nh);

/*
 * Loads dir's record and analyses it, claims too. Returns 0, or -1 with
 * nothing held and the reason in *cause (the caller frees).
 */
int	synth_load(const char *dir, struct dataset **ds, struct analysis **a,
	    char **cause);

/*
 * Makes a fresh directory /tmp/orch-test-NAME.XXXXXX. Returns its name
 * (the caller frees it with synth_tmpdir_free), or NULL.
 */
char	*synth_tmpdir_new(const char *name);

/* Removes dir, a record and what orch renders beside it, and frees dir. */
void	synth_tmpdir_free(char *dir);

#endif
