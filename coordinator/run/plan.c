/*
 * The order in which one host runs a suite. Rounds use the k cyclic
 * rotations of a random permutation of the variants, each rotation for
 * floor(R/k) or ceil(R/k) rounds, in shuffled order: every variant then
 * stands in every position equally often, up to one. A benchmark's rng is
 * seeded from the seed and its index, so benchmarks get independent orders
 * and one seed gives the same plan everywhere.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coordinator/analysis/rng.h"
#include "coordinator/run/plan.h"

/* Sets one plan entry. */
static void
plan_set(struct plan_entry *e, size_t bench, uint32_t variant, uint32_t round,
    int warmup)
{
	e->bench = (uint32_t)bench;
	e->variant = variant;
	e->round = round;
	e->warmup = warmup;
}

/*
 * rounds = auto: the rotations balanced and shuffled within each block of
 * block rounds, so that a host stopped after any block ran a balanced
 * order.
 */
static void
plan_blocks(struct rng *rng, uint32_t *rot, size_t rounds, size_t block,
    size_t k)
{
	size_t	from, len, r;

	if (block == 0)
		block = rounds;
	for (from = 0; from < rounds; from += len) {
		len = rounds - from < block ? rounds - from : block;
		for (r = 0; r < len; r++)
			rot[from + r] = (uint32_t)(r % k);
		rng_shuffle(rng, rot + from, len, sizeof *rot);
	}
}

/* Builds one host's run order from the suite and seed (see plan.h). */
int
plan_order(const struct suite *s, uint64_t seed, struct plan_entry **out,
    size_t *n)
{
	struct plan_entry	*e = NULL;
	struct rng		 rng;
	uint32_t		*perm = NULL, *rot = NULL;
	size_t			 k = s->nvariants, nb = s->nbenches;
	size_t			 rounds = s->rounds, warmup = s->warmup;
	size_t			 per_round, total, at = 0, b, v, w, r, j, base;
	char			 tag[64];
	int			 rc = -1;

	*out = NULL;
	*n = 0;
	if (k == 0 || nb == 0 || rounds + warmup == 0) {
		rc = 0;
		goto out;
	}
	if (k > UINT32_MAX || nb > UINT32_MAX || nb > SIZE_MAX / k)
		goto out;
	per_round = nb * k;
	if (rounds + warmup < rounds ||
	    rounds + warmup > SIZE_MAX / sizeof *e / per_round)
		goto out;
	total = per_round * (rounds + warmup);
	if ((e = malloc(total * sizeof *e)) == NULL ||
	    (perm = malloc(k * sizeof *perm)) == NULL ||
	    (rot = malloc((rounds > 0 ? rounds : 1) * sizeof *rot)) == NULL)
		goto out;

	for (b = 0; b < nb; b++) {
		for (v = 0; v < k; v++) {
			for (w = 0; w < warmup; w++)
				plan_set(&e[at++], b, (uint32_t)v, 0, 1);
		}
	}
	for (b = 0; b < nb; b++) {
		snprintf(tag, sizeof tag, "plan/bench/%zu", b);
		rng_seed_str(&rng, seed, tag);
		for (v = 0; v < k; v++)
			perm[v] = (uint32_t)v;
		rng_shuffle(&rng, perm, k, sizeof *perm);
		if (!s->auto_rounds) {
			for (r = 0; r < rounds; r++)
				rot[r] = (uint32_t)(r % k);
			rng_shuffle(&rng, rot, rounds, sizeof *rot);
		} else
			plan_blocks(&rng, rot, rounds, s->min_rounds, k);
		for (r = 0; r < rounds; r++) {
			base = at + (r * nb + b) * k;
			for (j = 0; j < k; j++)
				plan_set(&e[base + j], b,
				    perm[(rot[r] + j) % k], (uint32_t)(r + 1),
				    0);
		}
	}
	*out = e;
	*n = total;
	e = NULL;
	rc = 0;
out:
	free(rot);
	free(perm);
	free(e);
	return (rc);
}
