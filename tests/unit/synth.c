/*
 * Synthetic run records for the unit tests and the calibration (synth.h).
 * Their bytes are load-bearing: test-machines' and test-claims' golden
 * files and the tables of docs/statistics.md are functions of them, so a
 * change of a field or a draw here is a change of those too.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/claims.h"
#include "tests/unit/synth.h"

#define SYNTH_STARTED	"2026-01-01T00:00:00Z"
#define SYNTH_ENDED	"2026-01-01T00:01:00Z"

double
synth_gauss(struct rng *r)
{
	double	u1, u2;

	/* u1 in (0, 1): log(0) would be infinite. */
	do {
		u1 = (double)(rng_next(r) >> 11) * 0x1p-53;
	} while (u1 <= 0);
	u2 = (double)(rng_next(r) >> 11) * 0x1p-53;
	return (sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

int
synth_suite(struct synth_suite *ss, const char *name, size_t nvariants,
    size_t nbenches, uint32_t rounds, uint64_t seed)
{
	struct suite	*s = &ss->s;
	size_t		 i;

	if (nvariants == 0 || nvariants > SYNTH_VARIANTS_MAX ||
	    nbenches == 0 || nbenches > SYNTH_BENCHES_MAX)
		return (-1);
	memset(ss, 0, sizeof *ss);
	snprintf(ss->path, sizeof ss->path, "%s.ini", name);
	snprintf(ss->text, sizeof ss->text, "[suite]\nname = %s\n", name);
	s->path = ss->path;
	s->text = ss->text;
	snprintf(s->name, sizeof s->name, "%s", name);
	s->rounds = rounds;
	s->seed = seed;
	s->has_seed = 1;
	s->min_effect = 0.01;
	s->nvariants = nvariants;
	s->variants = ss->vars;
	for (i = 0; i < nvariants; i++)
		snprintf(ss->vars[i].name, sizeof ss->vars[i].name, "%c",
		    (int)('A' + i));
	s->nbenches = nbenches;
	s->benches = ss->bs;
	for (i = 0; i < nbenches; i++) {
		snprintf(ss->bs[i].name, sizeof ss->bs[i].name, "k%zu", i);
		snprintf(ss->m[i].name, sizeof ss->m[i].name, "elapsed_ns");
		ss->bs[i].nmetrics = 1;
		ss->bs[i].metrics = &ss->m[i];
	}
	return (0);
}

void
synth_host(struct host *h, const char *name, const char *arch,
    const char *cpu, uint32_t cores)
{
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", name);
	snprintf(h->agent_version, sizeof h->agent_version, "0.1.0");
	snprintf(h->facts.os, sizeof h->facts.os, "linux");
	snprintf(h->facts.arch, sizeof h->facts.arch, "%s", arch);
	snprintf(h->facts.cpu_model, sizeof h->facts.cpu_model, "%s", cpu);
	h->facts.cores = cores;
	h->status = HOST_OK;
}

int
synth_fact(struct host *h, const char *key, const char *value)
{
	struct proto_kv	*kv;

	if (h->facts.nextra >= PROTO_FACTS_EXTRA_MAX)
		return (-1);
	kv = &h->facts.extra[h->facts.nextra++];
	snprintf(kv->key, sizeof kv->key, "%s", key);
	snprintf(kv->value, sizeof kv->value, "%s", value);
	return (0);
}

int
synth_open(struct record *rec, const char *dir, const char *run_id,
    const struct suite *s, const char *cmdline, const struct host *h,
    size_t nh, char **cause)
{
	if (record_open(rec, dir, cause) != 0)
		return (-1);
	if (record_run(rec, run_id, s, s->seed, cmdline, SYNTH_STARTED, h,
	    nh) != 0) {
		/* The writer's reason sits in rec; the caller frees cause. */
		*cause = strdup(rec->err);
		return (-1);
	}
	return (0);
}

void
synth_sample(struct proto_sample *smp, uint32_t seq, uint32_t round,
    uint64_t wall_ns)
{
	memset(smp, 0, sizeof *smp);
	smp->seq = seq;
	smp->round = round;
	smp->attempt = 1;
	smp->wall_ns = wall_ns;
}

void
synth_elapsed(struct proto_sample *smp, uint32_t seq, uint32_t round,
    uint64_t wall_ns, double elapsed)
{
	synth_sample(smp, seq, round, wall_ns);
	smp->nmetrics = 1;
	snprintf(smp->metrics[0].key, sizeof smp->metrics[0].key,
	    "elapsed_ns");
	smp->metrics[0].value = elapsed;
}

int
synth_close(struct record *rec, const struct host *h, size_t nh)
{
	size_t	i;

	for (i = 0; i < nh; i++) {
		if (record_hostend(rec, &h[i]) != 0)
			return (-1);
	}
	return (record_close(rec, SYNTH_ENDED));
}

int
synth_load(const char *dir, struct dataset **ds, struct analysis **a,
    char **cause)
{
	if (record_load(dir, ds, cause) != 0)
		return (-1);
	if (analysis_build(*ds, a, cause) != 0) {
		dataset_free(*ds);
		*ds = NULL;
		return (-1);
	}
	if (claims_attach(*a, cause) != 0) {
		analysis_free(*a);
		*a = NULL;
		dataset_free(*ds);
		*ds = NULL;
		return (-1);
	}
	return (0);
}

char *
synth_tmpdir_new(const char *name)
{
	char	tmpl[256];

	if ((size_t)snprintf(tmpl, sizeof tmpl, "/tmp/orch-test-%s.XXXXXX",
	    name) >= sizeof tmpl)
		return (NULL);
	if (mkdtemp(tmpl) == NULL)
		return (NULL);
	return (strdup(tmpl));
}

void
synth_tmpdir_free(char *dir)
{
	/* Every file a test has orch write beside a record. */
	static const char *const files[] = {
		"samples.msgpack", "samples.csv", "summary.json", "report.md",
		"report.html", "answer.md", "compare.md", "compare.html",
		"compare.json"
	};
	char	path[4096];
	size_t	i;

	if (dir == NULL)
		return;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	free(dir);
}
