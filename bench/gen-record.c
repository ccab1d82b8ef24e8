/*
 * gen-record DIR HOSTS BENCHES ROUNDS PROG [EFFECT [NOISE [SEED]]]: writes a
 * synthetic run record, DIR/samples.msgpack, through the coordinator's own
 * writer (record.c): HOSTS hosts x BENCHES benchmarks x 2 variants x ROUNDS
 * rounds of samples, one floor sample per host and round, and the host and
 * end records a real run writes. Every value is base x exp(NOISE x z), z
 * standard normal and independent, and variant B's base is EFFECT times
 * A's (defaults: EFFECT 1.03, NOISE 0.05); each sample has the built-in
 * metrics, a program metric (elapsed_ns, the primary one) and a checksum.
 * PROG is any existing executable (the suite names it as both variants'
 * program). For `orch report DIR` at scale, and with EFFECT 1 for the
 * false-verdict rate of the statistics alone (min_effect 0.01).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"

/* A small deterministic generator (xorshift64*), uniform in [0, 1). */
static double
unif(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return ((double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0);
}

/* A standard normal deviate (Box-Muller). */
static double
gauss(uint64_t *s)
{
	double	u = unif(s), v = unif(s);

	if (u < 1e-300)
		u = 1e-300;
	return (sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

static void
usage(void)
{
	fprintf(stderr, "usage: gen-record DIR HOSTS BENCHES ROUNDS PROG "
	    "[EFFECT [NOISE [SEED]]]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct record		 rec;
	struct suite		*s = NULL;
	struct host		*hosts;
	struct proto_sample	 smp;
	char			 path[1024], bench[32], *cause = NULL;
	const char		*variants[2] = { "A", "B" };
	unsigned long		 nh, nb, nr, h, b, r, v, k;
	uint64_t		 rng = 0x9e3779b97f4a7c15ULL, *seq;
	double			 base, effect = 1.03, noise = 0.05;
	FILE			*f;

	if (argc < 6 || argc > 9)
		usage();
	if (argc > 6)
		effect = strtod(argv[6], NULL);
	if (argc > 7)
		noise = strtod(argv[7], NULL);
	if (argc > 8)
		rng ^= strtoull(argv[8], NULL, 10) * 0xbf58476d1ce4e5b9ULL;
	if (rng == 0)
		rng = 1;
	nh = strtoul(argv[2], NULL, 10);
	nb = strtoul(argv[3], NULL, 10);
	nr = strtoul(argv[4], NULL, 10);
	if (nh < 1 || nb < 1 || nr < 1 || nh > 64 || nb > 64)
		usage();

	snprintf(path, sizeof path, "%s/gen.ini", argv[1]);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		return (1);
	}
	fprintf(f, "[suite]\nname = gen\nrounds = %lu\nwarmup = 0\nseed = 1\n"
	    "min_effect = 0.01\n"
	    "[variant.A]\nbin = %s\n[variant.B]\nbin = %s\n", nr, argv[5],
	    argv[5]);
	for (b = 0; b < nb; b++)
		fprintf(f, "[bench.b%lu]\nargs = %lu\nmetrics = elapsed_ns, "
		    "wall_ns\nchecksum = checksum\n", b, b);
	fclose(f);
	if (suite_load(path, &s, &cause) != 0) {
		fprintf(stderr, "gen-record: %s\n", cause);
		return (1);
	}
	if (record_open(&rec, argv[1], &cause) != 0) {
		fprintf(stderr, "gen-record: %s\n", cause);
		return (1);
	}
	hosts = calloc(nh, sizeof *hosts);
	seq = calloc(nh, sizeof *seq);
	if (hosts == NULL || seq == NULL)
		return (1);
	for (h = 0; h < nh; h++) {
		snprintf(hosts[h].name, sizeof hosts[h].name, "h%lu", h + 1);
		snprintf(hosts[h].agent_version, sizeof hosts[h].agent_version,
		    "0.1.0");
		snprintf(hosts[h].facts.os, sizeof hosts[h].facts.os, "linux");
		snprintf(hosts[h].facts.arch, sizeof hosts[h].facts.arch,
		    h % 2 ? "aarch64" : "x86_64");
		snprintf(hosts[h].facts.cpu_model,
		    sizeof hosts[h].facts.cpu_model, "Synthetic CPU %lu", h);
		snprintf(hosts[h].facts.kernel, sizeof hosts[h].facts.kernel,
		    "6.1.0");
		snprintf(hosts[h].facts.hostname,
		    sizeof hosts[h].facts.hostname, "h%lu", h + 1);
		snprintf(hosts[h].facts.workdir, sizeof hosts[h].facts.workdir,
		    "/tmp/orch");
		hosts[h].facts.cores = 4;
		hosts[h].facts.mem_kb = 8 << 20;
		hosts[h].status = HOST_OK;
	}
	if (record_run(&rec, "20000101-000000-beef", s, 1,
	    "gen-record (synthetic)", "2000-01-01T00:00:00Z", hosts, nh) != 0)
		goto fail;
	for (h = 0; h < nh; h++) {
		if (record_host(&rec, &hosts[h]) != 0)
			goto fail;
	}

	/* Rounds are numbered from 1, as a real run numbers them. */
	for (r = 1; r <= nr; r++) {
		for (h = 0; h < nh; h++) {
			for (b = 0; b < nb; b++) {
				snprintf(bench, sizeof bench, "b%lu", b);
				for (k = 0; k < 2; k++) {
					v = (r + k) % 2;	/* balanced order */
					base = 1e7 * (1.0 + 0.1 * (double)b) *
					    (v ? effect : 1.0);
					memset(&smp, 0, sizeof smp);
					smp.seq = (uint32_t)seq[h]++;
					smp.round = (uint32_t)r;
					smp.attempt = 1;
					smp.status = PROTO_ST_OK;
					smp.wall_ns = (uint64_t)(base *
					    exp(noise * gauss(&rng)) + 1e6);
					smp.user_ns = smp.wall_ns * 9 / 10;
					smp.sys_ns = smp.wall_ns / 20;
					smp.maxrss_kb = 4000 + (uint64_t)(100 *
					    unif(&rng));
					smp.nvcsw = 1;
					smp.nivcsw = (uint64_t)(3 * unif(&rng));
					smp.load1 = 0.1 + 0.1 * unif(&rng);
					smp.start_ns = 946684800000000000LL +
					    (int64_t)smp.seq * 20000000LL;
					smp.nmetrics = 1;
					snprintf(smp.metrics[0].key,
					    sizeof smp.metrics[0].key,
					    "elapsed_ns");
					smp.metrics[0].value = base *
					    exp(noise * gauss(&rng));
					smp.has_checksum = 1;
					snprintf(smp.checksum,
					    sizeof smp.checksum, "c0ffee%lu",
					    b);
					if (record_sample(&rec, hosts[h].name,
					    bench, variants[v], &smp) != 0)
						goto fail;
				}
			}
			memset(&smp, 0, sizeof smp);
			smp.seq = (uint32_t)seq[h]++;
			smp.round = (uint32_t)r;
			smp.attempt = 1;
			smp.status = PROTO_ST_OK;
			smp.wall_ns = (uint64_t)(1e6 * (1 + 0.1 * unif(&rng)));
			smp.load1 = 0.1;
			if (record_sample(&rec, hosts[h].name, RECORD_FLOOR, "",
			    &smp) != 0)
				goto fail;
		}
	}
	for (h = 0; h < nh; h++) {
		if (record_hostend(&rec, &hosts[h]) != 0)
			goto fail;
	}
	if (record_close(&rec, "2000-01-01T06:00:00Z") != 0)
		goto fail;
	suite_free(s);
	return (0);
fail:
	fprintf(stderr, "gen-record: %s\n", rec.err);
	return (1);
}
