/* xoshiro256** (Blackman and Vigna), seeded through splitmix64. */
#include <string.h>

#include "coordinator/analysis/rng.h"

static uint64_t
rng_splitmix(uint64_t *x)
{
	uint64_t	z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

void
rng_seed(struct rng *r, uint64_t seed)
{
	int	i;

	for (i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&seed);
}

void
rng_seed_str(struct rng *r, uint64_t seed, const char *str)
{
	uint64_t	h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *str != '\0'; str++) {
		h ^= (unsigned char)*str;
		h *= 0x100000001b3ULL;
	}
	rng_seed(r, seed ^ h);
}

static uint64_t
rng_rotl(uint64_t x, int k)
{
	return ((x << k) | (x >> (64 - k)));
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t	*s = r->s;
	uint64_t	 result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t	 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return (result);
}

uint64_t
rng_below(struct rng *r, uint64_t n)
{
	uint64_t	x, limit;

	/* Reject the top partial bucket so every value is equally likely. */
	limit = UINT64_MAX - (UINT64_MAX % n);
	do
		x = rng_next(r);
	while (x >= limit);
	return (x % n);
}

void
rng_shuffle(struct rng *r, void *base, size_t n, size_t sz)
{
	unsigned char	*b = base, tmp[256];
	size_t		 i, j, k, chunk;

	if (n < 2)
		return;
	for (i = n - 1; i > 0; i--) {
		j = (size_t)rng_below(r, (uint64_t)i + 1);
		if (i == j)
			continue;
		for (k = 0; k < sz; k += chunk) {	/* swap in chunks */
			chunk = sz - k < sizeof tmp ? sz - k : sizeof tmp;
			memcpy(tmp, b + i * sz + k, chunk);
			memcpy(b + i * sz + k, b + j * sz + k, chunk);
			memcpy(b + j * sz + k, tmp, chunk);
		}
	}
}
