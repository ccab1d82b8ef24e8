/* Big-endian (network order) integers in byte buffers, of any alignment. */
#ifndef PROTO_BE_H
#define PROTO_BE_H

#include <stddef.h>
#include <stdint.h>

/* Writes v big-endian into the 2 bytes at p. */
static inline void
be16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Writes v big-endian into the 4 bytes at p. */
static inline void
be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Writes v big-endian into the 8 bytes at p. */
static inline void
be64_put(uint8_t *p, uint64_t v)
{
	be32_put(p, (uint32_t)(v >> 32));
	be32_put(p + 4, (uint32_t)v);
}

/* Returns the big-endian integer in the 2 bytes at p. */
static inline uint16_t
be16_get(const uint8_t *p)
{
	return ((uint16_t)(p[0] << 8 | p[1]));
}

/* Returns the big-endian integer in the 4 bytes at p. */
static inline uint32_t
be32_get(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3]);
}

/* Returns the big-endian integer in the 8 bytes at p. */
static inline uint64_t
be64_get(const uint8_t *p)
{
	return ((uint64_t)be32_get(p) << 32 | be32_get(p + 4));
}

/* Returns the big-endian integer in the n (at most 8) bytes at p. */
static inline uint64_t
be_get(const uint8_t *p, size_t n)
{
	uint64_t	v = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return (v);
}

#endif
