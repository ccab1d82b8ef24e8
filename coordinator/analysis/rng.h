/*
 * A small deterministic generator (xoshiro256**, seeded by splitmix64), so a
 * seed gives the same plan and the same bootstrap intervals on every OS.
 */
#ifndef COORDINATOR_RNG_H
#define COORDINATOR_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t	s[4];
};

/* Seeds r from seed. */
void	 rng_seed(struct rng *r, uint64_t seed);

/* Seeds r from seed mixed with a string (e.g. "host/bench/metric"). */
void	 rng_seed_str(struct rng *r, uint64_t seed, const char *str);

/* Returns 64 random bits. */
uint64_t rng_next(struct rng *r);

/* Returns a uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n);

/* Shuffles n elements of size sz in place (Fisher-Yates). */
void	 rng_shuffle(struct rng *r, void *base, size_t n, size_t sz);

#endif
