/*
 * gen-history DIR RUN-ID STARTED EFFECT SEED [KEY=VALUE...]: writes one
 * synthetic run, DIR/samples.msgpack, through the coordinator's own record
 * writer (record.c), for the history's tests: host h1 (x86_64), benchmark
 * b0, variants A and B, 10 rounds; every value is base x exp(0.02 z), z
 * standard normal from SEED, and B's base is EFFECT times A's. The
 * KEY=VALUE arguments are the run's labels, checked as --label checks them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"

#define ROUNDS	10

/* xorshift64*, uniform in (0, 1). */
static double
unif(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (((double)((*s * 2685821657736338717ULL) >> 11) + 0.5) /
	    9007199254740992.0);
}

static double
gauss(uint64_t *s)
{
	double	u = unif(s), v = unif(s);

	return (sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

int
main(int argc, char **argv)
{
	struct record		 rec;
	struct suite		*s = NULL;
	struct host		 host;
	struct proto_sample	 smp;
	const char		*variants[2] = { "A", "B" };
	char			 path[1024], *cause = NULL, *k, *val;
	uint64_t		 rng;
	double			 effect, base;
	unsigned		 r, v, j, seq = 0;
	int			 i;
	FILE			*f;

	if (argc < 6) {
		fprintf(stderr, "usage: gen-history DIR RUN-ID STARTED EFFECT "
		    "SEED [KEY=VALUE...]\n");
		return (2);
	}
	effect = strtod(argv[4], NULL);
	rng = 0x9e3779b97f4a7c15ULL ^ (strtoull(argv[5], NULL, 10) *
	    0xbf58476d1ce4e5b9ULL);
	if (rng == 0)
		rng = 1;
	snprintf(path, sizeof path, "%s/gen.ini", argv[1]);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		return (1);
	}
	fprintf(f, "[suite]\nname = gen\nrounds = %d\nwarmup = 0\nseed = 1\n"
	    "[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	    "[bench.b0]\nmetrics = elapsed_ns\n", ROUNDS);
	fclose(f);
	if (suite_load(path, &s, &cause) != 0 ||
	    record_open(&rec, argv[1], &cause) != 0) {
		fprintf(stderr, "gen-history: %s\n", cause);
		return (1);
	}
	memset(&host, 0, sizeof host);
	snprintf(host.name, sizeof host.name, "h1");
	snprintf(host.agent_version, sizeof host.agent_version, "0.1.0");
	snprintf(host.facts.os, sizeof host.facts.os, "linux");
	snprintf(host.facts.arch, sizeof host.facts.arch, "x86_64");
	snprintf(host.facts.cpu_model, sizeof host.facts.cpu_model,
	    "Synthetic CPU");
	snprintf(host.facts.kernel, sizeof host.facts.kernel, "6.1.0");
	snprintf(host.facts.hostname, sizeof host.facts.hostname, "h1");
	snprintf(host.facts.workdir, sizeof host.facts.workdir, "/tmp/orch");
	host.facts.cores = 4;
	host.facts.mem_kb = 8 << 20;
	host.status = HOST_OK;
	if (record_run(&rec, argv[2], s, 1, "gen-history (synthetic)",
	    argv[3], &host, 1) != 0 || record_opts(&rec, -1, -1) != 0)
		goto fail;
	for (i = 6; i < argc; i++) {
		if (dataset_label_parse(argv[i], &k, &val, &cause) != 0) {
			fprintf(stderr, "gen-history: %s\n", cause);
			return (2);
		}
		if (record_label(&rec, k, val) != 0)
			goto fail;
		free(k);
	}
	if (record_host(&rec, &host) != 0)
		goto fail;
	for (r = 1; r <= ROUNDS; r++) {
		for (j = 0; j < 2; j++) {
			v = (r + j) % 2;
			base = 1e7 * (v ? effect : 1.0);
			memset(&smp, 0, sizeof smp);
			smp.seq = seq++;
			smp.round = r;
			smp.attempt = 1;
			smp.status = PROTO_ST_OK;
			smp.wall_ns = (uint64_t)(base * exp(0.02 * gauss(&rng)));
			smp.user_ns = smp.wall_ns * 9 / 10;
			smp.load1 = 0.1;
			smp.start_ns = 946684800000000000LL +
			    (int64_t)smp.seq * 20000000LL;
			smp.nmetrics = 1;
			snprintf(smp.metrics[0].key, sizeof smp.metrics[0].key,
			    "elapsed_ns");
			smp.metrics[0].value = base * exp(0.02 * gauss(&rng));
			if (record_sample(&rec, host.name, "b0", variants[v],
			    &smp) != 0)
				goto fail;
		}
	}
	if (record_hostend(&rec, &host) != 0 ||
	    record_close(&rec, argv[3]) != 0)
		goto fail;
	suite_free(s);
	return (0);
fail:
	fprintf(stderr, "gen-history: %s\n", rec.err);
	return (1);
}
