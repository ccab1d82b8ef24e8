/*
 * The order in which one host runs a suite: warmups, then interleaved
 * rounds.
 */
#ifndef COORDINATOR_PLAN_H
#define COORDINATOR_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/input/suite.h"

struct plan_entry {
	uint32_t	bench;		/* index into suite->benches */
	uint32_t	variant;	/* index into suite->variants */
	uint32_t	round;		/* 1..rounds; 0 for warmups */
	int		warmup;
};

/*
 * Builds the order: first every warmup (suite->warmup runs of each variant
 * of each benchmark, round 0), then rounds 1..suite->rounds; each round runs
 * every benchmark once per variant. Within a round and benchmark the variant
 * order is balanced across rounds and shuffled from seed: each variant
 * stands in each position equally often (up to one when rounds is not a
 * multiple of the number of variants) — with two variants half the rounds
 * run A first. With rounds = auto the same holds within each block of
 * min_rounds rounds. The same seed gives the same order. Returns 0 or -1
 * (out of memory); *out is freed by the caller.
 */
int	plan_order(const struct suite *s, uint64_t seed,
	    struct plan_entry **out, size_t *n);

#endif
