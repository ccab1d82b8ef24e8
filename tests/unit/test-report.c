/*
 * Unit tests for the reports (coordinator/report*.c). Golden files: each
 * stored record under fixtures/report/ is rendered with report_render and
 * its report.md, summary.json and report.html compared byte for byte with
 * fixtures/report/NAME.*.golden. The "arch" record is constructed here
 * (gen_arch: two architectures, several hosts, an A/A variant, a checksum
 * disagreement, failed hosts and retried runs, constant ratios) so that
 * its verdicts and geometric means are known exactly.
 *
 * Regenerate the arch record and every golden file, from the repository
 * root, after a deliberate change to the reports:
 *   ORCH_UPDATE_GOLDEN=1 build/default/tests/test-report
 * then read the diff (git diff tests/unit/fixtures/report) before committing.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"
#include "coordinator/store/record.h"

#define FX_DIR		"tests/unit/fixtures/report"
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The files report_render writes, and the ones compared with goldens. */
static const char *const rendered[] = {
	"samples.csv", "summary.json", "report.md", "report.html", "answer.md"
};
static const char *const golden[] = {
	"report.md", "summary.json", "report.html", "answer.md"
};

/* Returns 1 when the golden files are to be rewritten, not compared. */
static int
updating(void)
{
	const char	*e = getenv("ORCH_UPDATE_GOLDEN");

	return (e != NULL && strcmp(e, "1") == 0);
}

/* Reads a whole file; returns its bytes (NUL-terminated) or NULL. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf = NULL;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return (buf);
}

/* Writes len bytes to path; fails the test on error. */
static void
spill(const char *path, const char *buf, size_t len)
{
	FILE	*f;

	if ((f = fopen(path, "wb")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void
copy_file(const char *from, const char *to)
{
	char	*buf;
	size_t	 len = 0;

	if ((buf = slurp(from, &len)) == NULL)
		fail_msg("%s: %s (run the tests from the repository root)",
		    from, strerror(errno));
	spill(to, buf, len);
	free(buf);
}

/* Makes a fresh directory under /tmp; the caller frees the name. */
static char *
tmpdir_new(void)
{
	char	*d = strdup("/tmp/orch-test-report.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return (d);
}

/* Removes a directory the tests filled with a record and its reports. */
static void
tmpdir_free(char *d)
{
	char	path[1024];
	size_t	i;

	snprintf(path, sizeof path, "%s/%s", d, RECORD_FILE);
	unlink(path);
	for (i = 0; i < NELEM(rendered); i++) {
		snprintf(path, sizeof path, "%s/%s", d, rendered[i]);
		unlink(path);
	}
	rmdir(d);
	free(d);
}

/* ---- the constructed record ------------------------------------------- */

/* The suite of the arch record, as its text; rep_settings parses it. */
static const char arch_text[] =
    "; Constructed by tests/unit/test-report.c (gen_arch).\n"
    "[suite]\n"
    "name       = arch\n"
    "rounds     = 8\n"
    "warmup     = 1\n"
    "seed       = 11\n"
    "min_effect = 0.02\n"
    "reference  = A\n"
    "\n"
    "[variant.A]\n"
    "bin = bin/{os}-{arch}/prog-a\n"
    "\n"
    "[variant.B]\n"
    "bin = bin/{os}-{arch}/prog-b\n"
    "\n"
    "[variant.C]\n"
    "bin = bin/{os}-{arch}/prog-a   ; the same program as A: an A/A control\n"
    "\n"
    "[bench.hash]\n"
    "args     = 100000\n"
    "metrics  = elapsed_ns, wall_ns\n"
    "checksum = checksum\n"
    "\n"
    "[bench.sort]\n"
    "args     = --sort 100000\n"
    "metrics  = keys_per_s, elapsed_ns\n"
    "better   = lower, keys_per_s:higher\n"
    "checksum = checksum\n"
    "\n"
    "[bench.crc]\n"
    "args     = --crc 4096\n"
    "metrics  = elapsed_ns\n"
    "checksum = checksum\n";

#define ARCH_ROUNDS	16	/* enough for a family of 20 (2^-15 < 0.05 / 20) */
#define ARCH_SEED	11

struct gen_host {
	const char	*name, *os, *arch, *cpu, *kernel;
	uint32_t	 cores;
	uint64_t	 mem_gib;
	double		 load;
	uint32_t	 rounds;	/* rounds it ran before it ended */
	const char	*error;		/* NULL: ok */
	double		 hash_b;	/* B / A on hash elapsed_ns */
	double		 crc_b;		/* B / A on crc elapsed_ns */
	double		 speed;		/* A's hash time, ms */
	const char	*extra;		/* facts: "key=value;key=value" */
};

static const struct gen_host gen_hosts[] = {
	{ "m2", "darwin", "aarch64", "Apple M2", "23.6.0", 8, 16, 1.1,
	    ARCH_ROUNDS, NULL, 0.90, 1.10, 40,
	    "model=Mac14,2;perf_cores=4;eff_cores=4" },
	{ "epyc1", "linux", "x86_64", "AMD EPYC 9654 96-Core Processor",
	    "6.1.0-18-amd64", 192, 768, 0.4, ARCH_ROUNDS, NULL, 1.00, 1.10,
	    55, "governor=performance;boost=on;smt=on;aslr=2;vm=no" },
	{ "epyc2", "linux", "x86_64", "AMD EPYC 9654 96-Core Processor",
	    "6.1.0-18-amd64", 192, 768, 0.6, ARCH_ROUNDS, NULL, 1.00, 1.10,
	    56, "governor=schedutil;boost=on;smt=on;aslr=2;vm=no" },
	{ "twocore", "linux", "x86_64", "Intel(R) Core(TM) i3-7100U CPU @ "
	    "2.40GHz", "6.1.0-13-amd64", 2, 8, 0.2, 3,
	    "ssh: connection to twocore.lab lost: <EOF> & \"gone\"", 0.90,
	    1.10, 120, "governor=powersave;boost=on;smt=on;aslr=2;"
	    "vm=yes (KVM)" },
};

/* Fills a host as the record wants it. */
static void
gen_host_fill(struct host *h, const struct gen_host *g)
{
	const char	*p, *e;

	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", g->name);
	snprintf(h->agent_version, sizeof h->agent_version, "0.1.0");
	snprintf(h->facts.os, sizeof h->facts.os, "%s", g->os);
	snprintf(h->facts.arch, sizeof h->facts.arch, "%s", g->arch);
	snprintf(h->facts.cpu_model, sizeof h->facts.cpu_model, "%s", g->cpu);
	snprintf(h->facts.kernel, sizeof h->facts.kernel, "%s", g->kernel);
	snprintf(h->facts.hostname, sizeof h->facts.hostname, "%s.lab",
	    g->name);
	snprintf(h->facts.workdir, sizeof h->facts.workdir, "/home/bench/.orch");
	h->facts.cores = g->cores;
	h->facts.mem_kb = g->mem_gib * 1024 * 1024;
	h->facts.load[0] = h->facts.load[1] = h->facts.load[2] = g->load;
	for (p = g->extra; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		struct proto_kv	*kv = &h->facts.extra[h->facts.nextra++];

		e = p + strcspn(p, "=");
		snprintf(kv->key, sizeof kv->key, "%.*s", (int)(e - p), p);
		p = *e == '=' ? e + 1 : e;
		e = p + strcspn(p, ";");
		snprintf(kv->value, sizeof kv->value, "%.*s", (int)(e - p), p);
	}
	h->pushed = 3 * 65536;
	h->npushed = 3;
	h->status = g->error == NULL ? HOST_OK : HOST_FAILED;
	if (g->error != NULL)
		snprintf(h->error, sizeof h->error, "%s", g->error);
}

/* A uniform double in [-1, 1). */
static double
gen_noise(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) * 0x1p-52 - 1);
}

/*
 * Writes one sample; values of every metric follow from elapsed (ns).
 * sum NULL: a run of the harness floor.
 */
static void
gen_sample(struct record *rec, const struct gen_host *g, const char *bench,
    const char *variant, uint32_t round, uint32_t attempt, uint32_t *seq,
    int warmup, int status, double elapsed, double keys, const char *sum)
{
	struct proto_sample	s;

	memset(&s, 0, sizeof s);
	s.seq = (*seq)++;
	s.round = round;
	s.attempt = attempt;
	s.warmup = (uint8_t)warmup;
	s.status = (uint8_t)status;
	s.load1 = g->load + 0.01 * (double)(s.seq % 7);
	s.start_ns = 1768471200LL * 1000000000LL + (int64_t)s.seq * 200000000;
	s.wall_ns = (uint64_t)(elapsed + 4.5e6);
	s.user_ns = (uint64_t)elapsed;
	s.sys_ns = 800000;
	s.maxrss_kb = 5908;
	s.nvcsw = 2;
	s.nivcsw = 3 + s.seq % 4;
	if (sum == NULL) {
		/* The floor: no metrics of its own, wall time only. */
		s.wall_ns = (uint64_t)elapsed;
		s.user_ns = s.sys_ns = 0;
	} else if (status == PROTO_ST_OK) {
		snprintf(s.metrics[s.nmetrics].key, PROTO_NAME_MAX,
		    "elapsed_ns");
		s.metrics[s.nmetrics++].value = elapsed;
		if (keys > 0) {
			snprintf(s.metrics[s.nmetrics].key, PROTO_NAME_MAX,
			    "keys_per_s");
			s.metrics[s.nmetrics++].value = keys;
		}
		s.has_checksum = 1;
		snprintf(s.checksum, sizeof s.checksum, "%s", sum);
	} else if (status == PROTO_ST_SIGNAL) {
		s.signal = 9;
		snprintf(s.err_tail, sizeof s.err_tail, "prog-b: <killed> & "
		    "core dumped\n");
	} else if (status == PROTO_ST_TIMEOUT) {
		snprintf(s.err_tail, sizeof s.err_tail, "timed out after 30 s");
	}
	assert_int_equal(record_sample(rec, g->name, bench, variant, &s), 0);
}

/* Writes what an agent said between samples. */
static void
gen_state(struct record *rec, const struct gen_host *g, const char *state,
    const char *detail, double load1, uint32_t waited_ms)
{
	struct proto_state	st;

	memset(&st, 0, sizeof st);
	snprintf(st.state, sizeof st.state, "%s", state);
	snprintf(st.detail, sizeof st.detail, "%s", detail);
	st.load1 = load1;
	st.limit = 64;
	st.waited_ms = waited_ms;
	assert_int_equal(record_state(rec, g->name, &st), 0);
}

/*
 * Writes dir/samples.msgpack: hosts m2 (aarch64), epyc1 and epyc2 (x86_64,
 * one group), twocore (x86_64, another CPU; fails after 3 rounds) and
 * ghost (never said hello). B's paired ratios are constant per host and
 * bench (hash: 0.90 on m2, 1.00 on the EPYCs; sort keys_per_s: 1.25;
 * crc: 1.10), so medians, intervals and geometric means are exact; on
 * epyc1 one crc run of B prints another checksum; C runs A's very files.
 */
static void
gen_arch(const char *dir)
{
	static const char *const benches[] = { "hash", "sort", "crc" };
	static const char *const order[2][3] = {
		{ "A", "B", "C" }, { "C", "B", "A" }
	};
	struct record		 rec;
	struct suite		 s;
	struct suite_variant	 vars[3];
	struct suite_bench	 bs[3];
	struct suite_metric	 hm[2], sm[2], cm[1];
	struct host		*hosts, *h;
	struct rng		 rng;
	const struct gen_host	*g;
	char			*cause = NULL, sha[3][PROTO_SHA_HEX];
	double			 base, a_val, v, keys, f;
	uint32_t		 seq, r, att;
	size_t			 i, b, k;
	int			 st;

	memset(&s, 0, sizeof s);
	memset(vars, 0, sizeof vars);
	memset(bs, 0, sizeof bs);
	memset(hm, 0, sizeof hm);
	memset(sm, 0, sizeof sm);
	memset(cm, 0, sizeof cm);
	s.path = (char *)(uintptr_t)FX_DIR "/arch.ini";
	s.text = (char *)(uintptr_t)arch_text;
	snprintf(s.name, sizeof s.name, "arch");
	s.rounds = ARCH_ROUNDS;
	s.warmup = 1;
	s.seed = ARCH_SEED;
	s.min_effect = 0.02;
	s.subtract_floor = 1;
	s.ref = 0;
	s.nvariants = 3;
	s.variants = vars;
	snprintf(vars[0].name, sizeof vars[0].name, "A");
	snprintf(vars[1].name, sizeof vars[1].name, "B");
	snprintf(vars[2].name, sizeof vars[2].name, "C");
	s.nbenches = 3;
	s.benches = bs;
	snprintf(hm[0].name, PROTO_NAME_MAX, "elapsed_ns");
	snprintf(hm[1].name, PROTO_NAME_MAX, "wall_ns");
	snprintf(sm[0].name, PROTO_NAME_MAX, "keys_per_s");
	sm[0].higher = 1;
	snprintf(sm[1].name, PROTO_NAME_MAX, "elapsed_ns");
	snprintf(cm[0].name, PROTO_NAME_MAX, "elapsed_ns");
	for (b = 0; b < 3; b++) {
		snprintf(bs[b].name, sizeof bs[b].name, "%s", benches[b]);
		snprintf(bs[b].checksum, sizeof bs[b].checksum, "checksum");
	}
	bs[0].nmetrics = 2;
	bs[0].metrics = hm;
	bs[1].nmetrics = 2;
	bs[1].metrics = sm;
	bs[2].nmetrics = 1;
	bs[2].metrics = cm;

	/* Every host the run started on: ours, then ghost. */
	hosts = calloc(NELEM(gen_hosts) + 1, sizeof *hosts);
	assert_non_null(hosts);
	for (i = 0; i < NELEM(gen_hosts); i++)
		gen_host_fill(&hosts[i], &gen_hosts[i]);
	h = &hosts[NELEM(gen_hosts)];
	snprintf(h->name, sizeof h->name, "ghost");
	h->status = HOST_FAILED;
	snprintf(h->error, sizeof h->error, "connect to ghost.lab port 22: "
	    "Connection refused");

	if (record_open(&rec, dir, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_run(&rec, "20260115-100000-arch", &s,
	    ARCH_SEED, "orch run --hosts=lab --seed=11 " FX_DIR "/arch.ini",
	    "2026-01-15T10:00:00Z", hosts, NELEM(gen_hosts) + 1), 0);
	rng_seed(&rng, ARCH_SEED);
	for (i = 0; i < NELEM(gen_hosts); i++) {
		g = &gen_hosts[i];
		h = &hosts[i];
		assert_int_equal(record_host(&rec, h), 0);
		/* Per architecture its own build; C is A's file. */
		for (k = 0; k < 2; k++) {
			memset(sha[k], 0, sizeof sha[k]);
			memset(sha[k], strcmp(g->arch, "aarch64") == 0 ?
			    "3c"[k] : "a9"[k], 64);
		}
		memcpy(sha[2], sha[0], sizeof sha[2]);
		for (k = 0; k < 3; k++) {
			char	path[128];

			snprintf(path, sizeof path, "bin/%s-%s/prog-%c", g->os,
			    g->arch, k == 1 ? 'b' : 'a');
			/* The M2 got fresh copies: their first runs count. */
			assert_int_equal(record_file(&rec, g->name,
			    vars[k].name, "bin", path, sha[k], i == 0), 0);
		}
		seq = 0;
		if (i == 1)
			gen_state(&rec, g, "waiting-load", "1-minute load 70.1 "
			    "above 64.0 (0.33 x 192 cores)", 70.1, 0);
		if (i == 1)
			gen_state(&rec, g, "waiting-load", "1-minute load 58.3 "
			    "below 64.0 after 41 s", 58.3, 41000);
		for (r = 0; r <= g->rounds; r++) {
			/* The harness floor, once per measured round. */
			if (r > 0)
				gen_sample(&rec, g, RECORD_FLOOR, "", r, 1,
				    &seq, 0, PROTO_ST_OK, g->speed * 2e4 *
				    (1 + 0.1 * gen_noise(&rng)), 0, NULL);
			for (b = 0; b < 3; b++) {
				base = g->speed * 1e6 * (b == 0 ? 1.0 :
				    b == 1 ? 0.6 : 0.25);
				/* A slow drift up, and noise of +-3%. */
				a_val = base * (1 + 0.004 * r) *
				    (1 + 0.03 * gen_noise(&rng));
				if (r == 0)
					a_val *= 2.5;	/* first runs lie */
				for (k = 0; k < 3; k++) {
					const char *vn = order[r % 2][k];

					f = 1;
					if (vn[0] == 'B')
						f = b == 0 ? g->hash_b :
						    b == 1 ? 1 / 1.25 : g->crc_b;
					else if (vn[0] == 'C')
						f = 1 + 0.03 * gen_noise(&rng);
					v = a_val * f;
					keys = b == 1 ? 1e5 / (v / 1e9) : 0;
					att = 1;
					/* epyc2: B's hash killed once, then retried. */
					if (i == 2 && b == 0 && r == 3 &&
					    vn[0] == 'B')
						gen_sample(&rec, g, benches[b],
						    vn, r, att++, &seq, 0,
						    PROTO_ST_SIGNAL, v, keys,
						    "");
					/* epyc2: A's sort times out twice. */
					st = i == 2 && b == 1 && r == 6 &&
					    vn[0] == 'A' ? PROTO_ST_TIMEOUT :
					    PROTO_ST_OK;
					if (st != PROTO_ST_OK)
						gen_sample(&rec, g, benches[b],
						    vn, r, att++, &seq, 0, st,
						    v, keys, "");
					gen_sample(&rec, g, benches[b], vn, r,
					    att, &seq, r == 0, st, v, keys,
					    i == 1 && b == 2 && r == 4 &&
					    vn[0] == 'B' ? "deadbeef" :
					    b == 0 ? "5f3a91c2" : b == 1 ?
					    "0badf00d" : "77e1d2c4");
				}
			}
		}
		assert_int_equal(record_hostend(&rec, h), 0);
	}
	assert_int_equal(record_hostend(&rec, &hosts[NELEM(gen_hosts)]), 0);
	assert_int_equal(record_close(&rec, "2026-01-15T10:04:12Z"), 0);
	free(hosts);
}

/* ---- golden files ----------------------------------------------------- */

/*
 * Compares dir/file with FX_DIR/name.file.golden, or rewrites the golden
 * file when updating. On a difference, names the first differing line.
 */
static void
check_golden(const char *dir, const char *name, const char *file)
{
	char	 got_path[1024], want_path[1024];
	char	*got, *want;
	size_t	 got_len = 0, want_len = 0, i, line = 1, ls = 0;

	snprintf(got_path, sizeof got_path, "%s/%s", dir, file);
	snprintf(want_path, sizeof want_path, "%s/%s.%s.golden", FX_DIR, name,
	    file);
	if ((got = slurp(got_path, &got_len)) == NULL)
		fail_msg("%s: %s", got_path, strerror(errno));
	if (updating()) {
		spill(want_path, got, got_len);
		free(got);
		return;
	}
	if ((want = slurp(want_path, &want_len)) == NULL)
		fail_msg("%s: %s (regenerate with ORCH_UPDATE_GOLDEN=1)",
		    want_path, strerror(errno));
	if (got_len != want_len || memcmp(got, want, got_len) != 0) {
		for (i = 0; i < got_len && i < want_len && got[i] == want[i];
		    i++) {
			if (got[i] == '\n') {
				line++;
				ls = i + 1;
			}
		}
		fail_msg("%s differs from %s at line %zu:\n got: %.120s\nwant:"
		    " %.120s\n(kept in %s; if the change is intended, "
		    "regenerate with ORCH_UPDATE_GOLDEN=1 and review the diff)",
		    got_path, want_path, line, got + ls, want + ls, dir);
	}
	free(got);
	free(want);
}

/* Renders FX_DIR/name.msgpack in a fresh directory; returns it. */
static char *
render_fixture(const char *name)
{
	char	 from[1024], to[1024], *dir, *cause = NULL;

	dir = tmpdir_new();
	snprintf(from, sizeof from, "%s/%s.msgpack", FX_DIR, name);
	snprintf(to, sizeof to, "%s/%s", dir, RECORD_FILE);
	copy_file(from, to);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render %s: %s", from, cause);
	return (dir);
}

static void
test_golden(void **state)
{
	const char	*name = *state;
	char		*dir;
	size_t		 i;

	dir = render_fixture(name);
	for (i = 0; i < NELEM(golden); i++)
		check_golden(dir, name, golden[i]);
	tmpdir_free(dir);
}

/* Rendering the same record again gives the same bytes, every file. */
static void
test_rerender(void **state)
{
	const char	*name = *state;
	char		*dir, *cause = NULL, path[1024], *first[NELEM(rendered)];
	char		*again;
	size_t		 i, len[NELEM(rendered)], len2;

	dir = render_fixture(name);
	for (i = 0; i < NELEM(rendered); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, rendered[i]);
		assert_non_null(first[i] = slurp(path, &len[i]));
	}
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < NELEM(rendered); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, rendered[i]);
		assert_non_null(again = slurp(path, &len2));
		if (len2 != len[i] || memcmp(again, first[i], len2) != 0)
			fail_msg("%s changed when rendered again", rendered[i]);
		free(again);
		free(first[i]);
	}
	tmpdir_free(dir);
}

/* ---- the constructed record's verdicts -------------------------------- */

/* Returns the index of host name in ds; fails the test when absent. */
static size_t
host_of(const struct dataset *ds, const char *name)
{
	long	i = dataset_host(ds, name);

	if (i < 0)
		fail_msg("no host %s", name);
	return ((size_t)i);
}

static const struct rep_cmp *
cmp_of(const struct analysis *a, const char *host, size_t bench,
    size_t variant)
{
	const struct rep_cmp	*c;

	c = analysis_cmp(a, host_of(a->ds, host), bench, 0, variant);
	assert_non_null(c);
	return (c);
}

/* Returns the group whose label is label; fails when absent. */
static size_t
group_of(const struct analysis *a, const char *label)
{
	size_t	g;

	for (g = 0; g < a->ngroups; g++) {
		if (strcmp(a->groups[g].label, label) == 0)
			return (g);
	}
	fail_msg("no group '%s'", label);
	return (0);
}

static void
expect_close(const char *what, double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

static void
expect_in(const char *what, const char *text, const char *needle)
{
	if (strstr(text, needle) == NULL)
		fail_msg("%s: '%s' not found", what, needle);
}

/* Checks the verdicts, labels and means of the arch record in dir. */
static void
check_arch(const char *dir)
{
	struct dataset		*ds = NULL;
	struct analysis		*a = NULL;
	const struct rep_cmp	*c;
	const struct rep_geo	*geo;
	const struct rep_row	*row;
	char			*cause = NULL, *md, *html, *json, path[1024];
	size_t			 g, len, i;
	const char		*hosts[] = { "m2", "epyc1", "epyc2" };

	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(analysis_build(ds, &a, &cause), 0);

	/* Two failed hosts, one of them never said hello. */
	assert_int_equal(a->nfailed_hosts, 2);
	assert_int_equal(a->ngroups, 4);
	assert_false(a->groups[3].known);
	assert_true(a->inverted);

	/* B is better on hash on the M2, the same on both EPYCs. */
	c = cmp_of(a, "m2", 0, 1);
	assert_int_equal(c->verdict, VERDICT_BETTER);
	expect_close("m2 hash ratio", c->ratio, 0.9);
	expect_close("m2 hash lo", c->lo, 0.9);
	expect_close("m2 hash hi", c->hi, 0.9);
	assert_int_equal(cmp_of(a, "epyc1", 0, 1)->verdict, VERDICT_SAME);
	assert_int_equal(cmp_of(a, "epyc2", 0, 1)->verdict, VERDICT_SAME);
	/* keys_per_s is higher-is-better: 1.25 is better. */
	c = cmp_of(a, "epyc2", 1, 1);
	assert_int_equal(c->verdict, VERDICT_BETTER);
	expect_close("epyc2 sort ratio", c->ratio, 1.25);
	assert_int_equal(c->npairs, ARCH_ROUNDS - 1);	/* A timed out once */
	/* crc: worse, except where a checksum disagrees. */
	assert_int_equal(cmp_of(a, "m2", 2, 1)->verdict, VERDICT_WORSE);
	c = cmp_of(a, "epyc1", 2, 1);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	assert_true(isnan(c->ratio));
	expect_in("epyc1 crc reason", c->reason, "checksums disagree");
	expect_in("epyc1 crc reason", c->reason, "deadbeef");
	/* B's mismatch touches only comparisons with B: C vs A stands. */
	assert_int_equal(cmp_of(a, "epyc1", 2, 2)->verdict, VERDICT_SAME);
	/* The family: every valid primary comparison and mean of several. */
	assert_true(a->family_size > 10);
	expect_close("family alpha", a->family_alpha,
	    0.05 / (double)a->family_size);
	c = cmp_of(a, "m2", 0, 1);
	assert_true(c->family);
	expect_close("m2 hash level", c->level, 1 - a->family_alpha);
	/* twocore ran 3 rounds: too few pairs. */
	c = cmp_of(a, "twocore", 0, 1);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("twocore reason", c->reason, "3 good pairs");

	/* C runs A's very files with A's settings: A/A; B does not. */
	for (i = 0; i < NELEM(hosts); i++) {
		assert_int_equal(cmp_of(a, hosts[i], 0, 2)->files,
		    REP_FILES_AA);
		assert_int_equal(cmp_of(a, hosts[i], 0, 1)->files,
		    REP_FILES_DIFFER);
	}

	/* The matrix flags hash: better on one architecture, same on another. */
	row = NULL;
	for (i = 0; i < a->nrows; i++) {
		if (a->rows[i].bench == 0 && a->rows[i].variant == 1)
			row = &a->rows[i];
	}
	assert_non_null(row);
	assert_true(row->differs);
	expect_in("hash agreement", row->agreement,
	    "better on aarch64 · Apple M2, same on x86_64 · AMD EPYC 9654 "
	    "96-Core Processor, invalid on x86_64 · Intel");
	/* crc: worse wherever it is valid; nothing proven contradicts. */
	for (i = 0; i < a->nrows; i++) {
		if (a->rows[i].bench == 2 && a->rows[i].variant == 1)
			row = &a->rows[i];
	}
	assert_false(row->differs);
	expect_in("crc agreement", row->agreement, "x86_64 · AMD EPYC 9654 "
	    "96-Core Processor (epyc2)");

	/* Geometric means of constant ratios are exact, intervals points. */
	g = group_of(a, "aarch64 · Apple M2");
	assert_non_null(geo = analysis_geo(a, g, 1));
	assert_int_equal(geo->nused, 3);
	expect_close("m2 geomean", geo->est, cbrt(0.9 * 0.8 * 1.1));
	expect_close("m2 geomean lo", geo->lo, geo->est);
	expect_close("m2 geomean hi", geo->hi, geo->est);
	assert_int_equal(geo->verdict, VERDICT_BETTER);
	assert_int_equal(geo->count[VERDICT_BETTER], 2);
	assert_int_equal(geo->count[VERDICT_WORSE], 1);
	assert_false(geo->aa);
	g = group_of(a, "x86_64 · AMD EPYC 9654 96-Core Processor");
	assert_non_null(geo = analysis_geo(a, g, 1));
	assert_int_equal(geo->nused, 5);
	assert_int_equal(geo->nbenches, 3);
	assert_int_equal(geo->nhosts, 2);
	assert_int_equal(geo->ninvalid, 1);
	expect_close("epyc geomean", geo->est, pow(0.8 * 0.8 * 1.1, 0.2));
	expect_close("epyc geomean lo", geo->lo, geo->est);
	assert_int_equal(geo->verdict, VERDICT_BETTER);
	assert_non_null(geo = analysis_geo(a, g, 2));
	assert_true(geo->aa);
	g = group_of(a, "x86_64 · Intel(R) Core(TM) i3-7100U CPU @ 2.40GHz");
	assert_non_null(geo = analysis_geo(a, g, 1));
	assert_int_equal(geo->nused, 0);
	assert_int_equal(geo->verdict, VERDICT_INVALID);
	assert_null(analysis_geo(a, 3, 1));	/* ghost: no facts */

	/* The answers: B better where it could be measured. */
	assert_int_equal(a->nanswers, 2);
	assert_string_equal(a->answers[0].headline,
	    "better on some architectures (aarch64 · Apple M2, x86_64 · AMD "
	    "EPYC 9654 96-Core Processor)");
	/* Comparisons are counted as such, not as benchmarks. */
	expect_in("B detail", a->answers[0].detail, "x86_64 · AMD EPYC 9654 "
	    "96-Core Processor: better, geomean 0.932 [0.932, 0.950] over 5 "
	    "comparisons, 3 benchmarks on 2 hosts (2 better, 1 worse, 2 same, 1 "
	    "invalid)");
	expect_in("B detail", a->answers[0].detail, "x86_64 · Intel(R) "
	    "Core(TM) i3-7100U CPU @ 2.40GHz: invalid, no valid comparison");
	expect_in("C detail", a->answers[1].detail,
	    "A/A comparison (identical files)");
	assert_int_equal(a->nworse, 2);

	/* The rendered files say so. */
	snprintf(path, sizeof path, "%s/report.md", dir);
	assert_non_null(md = slurp(path, &len));
	expect_in("report.md", md, "- **B vs A: better on some architectures "
	    "(aarch64 · Apple M2, x86_64 · AMD EPYC 9654 96-Core Processor)**");
	expect_in("report.md", md, "⚠ **differs:** better on aarch64 · Apple M2");
	expect_in("report.md", md, "are one family of 21 tests held to a 5% "
	    "family-wise error rate: each is tested at p ≤ 0.0024");
	expect_in("report.md", md, "`m2` resolves 0.6%");
	expect_in("report.md", md, "*(per comparison, 95%)*");
	expect_in("report.md", md, "<br>*A/A comparison (identical files)*");
	expect_in("report.md", md, "> **A/A comparison (identical files):** "
	    "on `m2`, C runs");
	expect_in("report.md", md, "> **2 hosts failed.**");
	expect_in("report.md", md, "> - `ghost` (no facts): connect to "
	    "ghost.lab port 22: Connection refused");
	expect_in("report.md", md, "> - `twocore` (x86_64 · Intel(R) Core(TM) "
	    "i3-7100U CPU @ 2.40GHz): ssh: connection to twocore.lab lost: "
	    "\\<EOF> & \"gone\"");
	expect_in("report.md", md, "Runs of `hash` on epyc2: 0 failed, 1 "
	    "retried (B 1)");
	expect_in("report.md", md, "Runs of `sort` on epyc2: 1 failed (A 1), "
	    "1 retried (A 1)");
	expect_in("report.md", md, "> **No ratio for B vs A:** checksums "
	    "disagree");
	snprintf(path, sizeof path, "%s/report.html", dir);
	assert_non_null(html = slurp(path, &len));
	expect_in("report.html", html, "lost: &lt;EOF&gt; &amp; &quot;gone&quot;");
	expect_in("report.html", html, "&lt;killed&gt; &amp; core dumped");
	assert_null(strstr(html, "<EOF>"));
	assert_null(strstr(html, "<killed>"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	expect_in("report.html", html, "A/A comparison (identical files)");
	expect_in("report.html", html, "class=\"forest\"");
	expect_in("report.html", html, "class=\"rounds\"");
	snprintf(path, sizeof path, "%s/summary.json", dir);
	assert_non_null(json = slurp(path, &len));
	expect_in("summary.json", json, "\"files\": \"identical\"");
	expect_in("summary.json", json, "\"differs\": true");
	free(md);
	free(html);
	free(json);
	analysis_free(a);
	dataset_free(ds);
}

/* ---- a long run: samples.csv's numbers and order, the binned plots ---- */

#define LONG_ROUNDS	1000

/* Values whose printf formatting the CSV writer must reproduce exactly. */
static const double long_loads[] = {
	0.125, 0.005, 1.005, 2.675, 0.16, 1e-7, -1, 12345.675, 0.995,
	99.995, 0, 1e12, 0.375, 3.14159, 7.5, 0.045
};
static const double long_vals[] = {
	1.0, -0.0, 0.0, -5.0, 9007199254740993.0, 1e300, 0.1,
	123456789.0, 2.5e-300, 1e16 + 2, -9007199254740992.0, 4503599627370497.5,
	1234.5, 1e-5, 3.0e15, 1e20
};

/* The value of round r, variant k in the long record (ns, > 0). */
static double
long_elapsed(uint32_t r, size_t k)
{
	return (1e6 * (1 + 0.001 * (double)(r % 17)) * (k == 1 ? 1.05 : 1));
}

/*
 * Writes a long record: hosts "zeta" and "alpha" (in that order), 1000
 * rounds of A and B, a floor run per round, B failing in rounds 500-502;
 * zeta's seq numbers are not in the record's order in rounds 10-19.
 */
static void
gen_long(const char *dir)
{
	static const char *const names[] = { "zeta", "alpha" };
	struct record		 rec;
	struct suite		 s;
	struct suite_variant	 vars[2];
	struct suite_bench	 bs[1];
	struct suite_metric	 m[1];
	struct proto_sample	 smp;
	struct host		 hosts[2];
	char			*cause = NULL;
	uint32_t		 r, seq, n = 0;
	size_t			 i, k, x;

	memset(&s, 0, sizeof s);
	memset(vars, 0, sizeof vars);
	memset(bs, 0, sizeof bs);
	memset(m, 0, sizeof m);
	s.path = (char *)(uintptr_t)"long.ini";
	s.text = (char *)(uintptr_t)"[suite]\nname = long\n";
	snprintf(s.name, sizeof s.name, "long");
	s.rounds = LONG_ROUNDS;
	s.seed = 3;
	s.min_effect = 0.01;
	s.subtract_floor = 1;
	s.nvariants = 2;
	s.variants = vars;
	snprintf(vars[0].name, sizeof vars[0].name, "A");
	snprintf(vars[1].name, sizeof vars[1].name, "B");
	s.nbenches = 1;
	s.benches = bs;
	snprintf(m[0].name, PROTO_NAME_MAX, "elapsed_ns");
	snprintf(bs[0].name, sizeof bs[0].name, "spin");
	bs[0].nmetrics = 1;
	bs[0].metrics = m;
	for (i = 0; i < 2; i++) {
		gen_host_fill(&hosts[i], &gen_hosts[1]);
		snprintf(hosts[i].name, sizeof hosts[i].name, "%s", names[i]);
	}
	if (record_open(&rec, dir, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_run(&rec, "20260115-100000-long", &s, 3,
	    "orch run long.ini", "2026-01-15T10:00:00Z", hosts, 2), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(record_host(&rec, &hosts[i]), 0);
		for (r = 1, seq = 0; r <= LONG_ROUNDS; r++) {
			for (k = 0; k < 3; k++, seq++) {
				memset(&smp, 0, sizeof smp);
				smp.seq = seq;
				/* Rounds 10-19 of zeta: sent out of order. */
				if (i == 0 && r >= 10 && r < 20)
					smp.seq = 3 * (29 - r) + (uint32_t)k;
				smp.round = r;
				smp.attempt = 1;
				x = n++;
				smp.load1 = long_loads[x % NELEM(long_loads)];
				smp.wall_ns = 1000000 + x;
				smp.user_ns = x;
				if (k == 2) {	/* the floor */
					smp.wall_ns = 20000;
					assert_int_equal(record_sample(&rec,
					    names[i], RECORD_FLOOR, "", &smp),
					    0);
					continue;
				}
				if (k == 1 && r >= 500 && r <= 502) {
					smp.status = PROTO_ST_TIMEOUT;
					snprintf(smp.err_tail,
					    sizeof smp.err_tail, "timed out");
				} else {
					smp.nmetrics = 2;
					snprintf(smp.metrics[0].key,
					    PROTO_NAME_MAX, "elapsed_ns");
					smp.metrics[0].value =
					    long_elapsed(r, k);
					snprintf(smp.metrics[1].key,
					    PROTO_NAME_MAX, "odd");
					smp.metrics[1].value = long_vals[x %
					    NELEM(long_vals)];
				}
				assert_int_equal(record_sample(&rec, names[i],
				    "spin", vars[k].name, &smp), 0);
			}
		}
		assert_int_equal(record_hostend(&rec, &hosts[i]), 0);
	}
	assert_int_equal(record_close(&rec, "2026-01-15T11:00:00Z"), 0);
}

/* Returns field i (0-based) of a CSV row without quotes, in buf. */
static const char *
csv_col(const char *row, int i, char *buf, size_t len)
{
	size_t	n;

	while (i-- > 0)
		row = strchr(row, ',') + 1;
	n = strcspn(row, ",\n");
	snprintf(buf, len, "%.*s", (int)n, row);
	return (buf);
}

/*
 * samples.csv of a long record: each host's rows in execution order
 * (alpha before zeta), and every load and program value printed as
 * printf's %.2f and %.17g print it.
 */
static void
test_long_csv(void **state)
{
	char		*dir, *cause = NULL, *csv, *row, *nl, path[1024];
	char		 host[32], prev[32] = "", metric[32], val[64], want[64];
	char		 seqs[32], user[32];
	size_t		 len, rows = 0, x = 0, nload = 0, nodd = 0;
	long		 seq, last = -1;
	uint64_t	 ux;

	(void)state;
	dir = tmpdir_new();
	gen_long(dir);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	snprintf(path, sizeof path, "%s/samples.csv", dir);
	assert_non_null(csv = slurp(path, &len));
	row = strchr(csv, '\n') + 1;
	for (; *row != '\0'; row = nl + 1, rows++) {
		assert_non_null(nl = strchr(row, '\n'));
		csv_col(row, 1, host, sizeof host);
		seq = atol(csv_col(row, 7, seqs, sizeof seqs));
		csv_col(row, 10, metric, sizeof metric);
		csv_col(row, 11, val, sizeof val);
		if (strcmp(host, prev) != 0) {
			/* alpha's rows, then zeta's. */
			assert_string_equal(host, prev[0] == '\0' ? "alpha" :
			    "zeta");
			snprintf(prev, sizeof prev, "%s", host);
			last = -1;
		}
		if (seq < last)
			fail_msg("%s: seq %ld after %ld", host, seq, last);
		last = seq;
		if (strcmp(metric, "user_ns") == 0) {
			/* user_ns carries the sample's index in the record. */
			ux = strtoull(csv_col(row, 11, user, sizeof user),
			    NULL, 10);
			x = (size_t)ux;
		} else if (strcmp(metric, "load1") == 0) {
			snprintf(want, sizeof want, "%.2f",
			    long_loads[x % NELEM(long_loads)]);
			if (strcmp(val, want) != 0)
				fail_msg("load1 %.17g: '%s', want '%s'",
				    long_loads[x % NELEM(long_loads)], val,
				    want);
			nload++;
		} else if (strcmp(metric, "odd") == 0) {
			snprintf(want, sizeof want, "%.17g",
			    long_vals[x % NELEM(long_vals)]);
			if (strcmp(val, want) != 0)
				fail_msg("odd %.17g: '%s', want '%s'",
				    long_vals[x % NELEM(long_vals)], val, want);
			nodd++;
		}
	}
	/* 2 hosts x 1000 rounds x (A, B, floor); 6 failed runs have no
	 * program metrics. */
	assert_int_equal(nload, 2 * LONG_ROUNDS * 3);
	assert_int_equal(nodd, 2 * LONG_ROUNDS * 2 - 6);
	assert_int_equal(rows, nload * 7 + nodd * 2);
	free(csv);
	tmpdir_free(dir);
}

/* Counts the occurrences of needle in text. */
static size_t
count_of(const char *text, const char *needle)
{
	size_t	n = 0;

	while ((text = strstr(text, needle)) != NULL) {
		n++;
		text += strlen(needle);
	}
	return (n);
}

/*
 * The rounds plot of a long run draws bins of rounds, not a dot per run:
 * a band and a line of medians per variant, a mark for the bin whose runs
 * failed, and a page of a size a browser opens at once.
 */
static void
test_long_html(void **state)
{
	char	*dir, *cause = NULL, *html, path[1024];
	size_t	 len;

	(void)state;
	dir = tmpdir_new();
	gen_long(dir);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	snprintf(path, sizeof path, "%s/report.html", dir);
	assert_non_null(html = slurp(path, &len));
	assert_int_equal(count_of(html, "<svg class=\"rounds\""), 2);
	expect_in("report.html", html, "by round, in bins of 3 rounds");
	/* Per host and variant: a band and a line. */
	assert_int_equal(count_of(html, "fill-opacity=\"0.16\""), 4);
	/* B's rounds 500-502 failed: bins 167 (499-501) and 168 (502-504). */
	expect_in("report.html", html, "B rounds 499 to 501: 2 failed runs");
	expect_in("report.html", html, "B rounds 502 to 504: 1 failed run<");
	/* Legend dots only: no dot per run. */
	if (count_of(html, "<circle") > 20)
		fail_msg("%zu circles: runs drawn one by one",
		    count_of(html, "<circle"));
	if (len > 200 * 1024)
		fail_msg("report.html is %zu bytes", len);
	free(html);
	tmpdir_free(dir);
}

/* The generator writes the arch record; its analysis is as designed. */
static void
test_arch_generated(void **state)
{
	char	*dir, *cause = NULL, path[1024];

	(void)state;
	dir = tmpdir_new();
	gen_arch(dir);
	if (updating()) {
		snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
		copy_file(path, FX_DIR "/arch.msgpack");
	}
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	check_arch(dir);
	tmpdir_free(dir);
}

/* The stored arch record (what the golden files come from) too. */
static void
test_arch_stored(void **state)
{
	char	*dir;

	(void)state;
	dir = render_fixture("arch");
	check_arch(dir);
	tmpdir_free(dir);
}

/* ---- the one-line answer ---------------------------------------------- */

struct headline_case {
	const char		*name;
	size_t			 n;
	enum stats_verdict	 v[4];
	const char		*want;
};

#define B	VERDICT_BETTER
#define W	VERDICT_WORSE
#define S	VERDICT_SAME
#define I	VERDICT_INCONCLUSIVE
#define X	VERDICT_INVALID
static const struct headline_case headline_cases[] = {
	{ "all better", 3, { B, B, B }, "better on all architectures" },
	{ "all worse", 2, { W, W }, "worse on all architectures" },
	{ "all same", 2, { S, S }, "same on all architectures" },
	{ "one worse", 3, { S, W, I }, "worse on some architectures" },
	{ "worse and invalid", 2, { W, X }, "worse on some architectures" },
	{ "better and worse", 3, { B, W, S }, "mixed" },
	{ "better here, same there", 2, { B, S }, "mixed" },
	{ "better, unproven elsewhere", 2, { B, I }, "better on some "
	    "architectures" },
	{ "better, invalid elsewhere", 3, { B, B, X }, "better on some "
	    "architectures" },
	{ "same and inconclusive", 2, { S, I }, "inconclusive" },
	{ "all inconclusive", 2, { I, I }, "inconclusive" },
	{ "same, invalid elsewhere", 2, { S, X }, "same on some "
	    "architectures" },
	{ "all invalid", 2, { X, X }, "invalid" },
	{ "nothing", 0, { X }, "invalid" },
};
#undef B
#undef W
#undef S
#undef I
#undef X

static void
test_headline(void **state)
{
	const struct headline_case	*hc;
	const char			*got;
	size_t				 i;

	(void)state;
	for (i = 0; i < NELEM(headline_cases); i++) {
		hc = &headline_cases[i];
		got = analysis_headline(hc->v, hc->n);
		if (strcmp(got, hc->want) != 0)
			fail_msg("%s: got '%s', want '%s'", hc->name, got,
			    hc->want);
	}
}

static void
test_short_reason(void **state)
{
	char	buf[128];

	(void)state;
	report_text_reason("checksums disagree: A round 1 gave x", buf,
	    sizeof buf);
	assert_string_equal(buf, "checksums disagree");
	report_text_reason("3 good pairs; at least 5 are needed", buf,
	    sizeof buf);
	assert_string_equal(buf, "3 good pairs");
	report_text_reason("", buf, sizeof buf);
	assert_string_equal(buf, "");
	/* A round alone says nothing: what happened in it is kept. */
	report_text_reason("round 2: B took -5 ns after the harness floor "
	    "is subtracted, not above 0: lengthen the benchmark", buf,
	    sizeof buf);
	assert_string_equal(buf, "round 2: B took -5 ns after the harness "
	    "floor is subtracted, not above 0");
	report_text_reason("round 12: B gave wall_ns = 0; a ratio needs",
	    buf, sizeof buf);
	assert_string_equal(buf, "round 12: B gave wall_ns = 0");
	report_text_reason("round x: y", buf, sizeof buf);
	assert_string_equal(buf, "round x");
	report_text_reason("round : y", buf, sizeof buf);
	assert_string_equal(buf, "round ");
}

static void
test_tty_text(void **state)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f;

	(void)state;
	assert_non_null(f = open_memstream(&buf, &len));
	tty_write(f, "a\x1b[2Jb\x7f\tc·d");
	fclose(f);
	/* Escape, DEL and tab cannot reach the screen; UTF-8 passes. */
	assert_string_equal(buf, "a?[2Jb??c·d");
	free(buf);
}

int
main(void)
{
	static const char	*example = "example", *arch = "arch";
	const struct CMUnitTest	 tests[] = {
		cmocka_unit_test(test_headline),
		cmocka_unit_test(test_short_reason),
		cmocka_unit_test(test_tty_text),
		/* First: with ORCH_UPDATE_GOLDEN=1 it rewrites arch.msgpack. */
		cmocka_unit_test(test_arch_generated),
		cmocka_unit_test(test_arch_stored),
		cmocka_unit_test(test_long_csv),
		cmocka_unit_test(test_long_html),
		cmocka_unit_test_prestate(test_golden, (void *)(uintptr_t)example),
		cmocka_unit_test_prestate(test_golden, (void *)(uintptr_t)arch),
		cmocka_unit_test_prestate(test_rerender, (void *)(uintptr_t)example),
		cmocka_unit_test_prestate(test_rerender, (void *)(uintptr_t)arch),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
