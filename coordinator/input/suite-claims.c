/*
 * The [claim.NAME] sections of a suite (docs/suites.md), parsed for
 * suite.c: what a suite states it expects of a variant (suite.h).
 * Deciding them is coordinator/analysis/claims.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/input/ini.h"
#include "coordinator/input/suite.h"

const char *const claims_keys[] = {
	"variant", "reference", "benchmarks", "expect", NULL
};
enum { CK_VARIANT, CK_REFERENCE, CK_BENCHMARKS, CK_EXPECT };

#define CLAIMS_NAME_RULE \
	"1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or ."
#define CLAIMS_EXPECT_FORMS \
	"better, worse, same, 'better by >= N%%' or 'worse by >= N%%'"

struct suite_claim *
claims_add(struct ini_src *src, struct suite *s, const char *name,
    size_t len)
{
	struct suite_claim	*c;
	size_t			 i;
	void			*na;

	if (!ini_name_ok(name, len, PROTO_NAME_MAX)) {
		ini_error(src, src->line, "[claim.%.*s] bad name '%.*s' (want "
		    CLAIMS_NAME_RULE ")", (int)(len > 64 ? 64 : len), name,
		    (int)(len > 64 ? 64 : len), name);
		return (NULL);
	}
	for (i = 0; i < s->nclaims; i++) {
		if (strlen(s->claims[i].name) == len &&
		    memcmp(s->claims[i].name, name, len) == 0) {
			ini_error(src, src->line, "duplicate section "
			    "[claim.%.*s] (first on line %d)", (int)len, name,
			    s->claims[i].line);
			return (NULL);
		}
	}
	if (s->nclaims >= CLAIMS_MAX) {
		ini_error(src, src->line, "too many claim sections (at most "
		    "%d)", CLAIMS_MAX);
		return (NULL);
	}
	if ((na = realloc(s->claims, (s->nclaims + 1) * sizeof *c)) == NULL) {
		ini_error(src, src->line, "out of memory");
		return (NULL);
	}
	s->claims = na;
	c = &s->claims[s->nclaims++];
	memset(c, 0, sizeof *c);
	memcpy(c->name, name, len);
	c->line = src->line;
	return (c);
}

/* Parses "better by >= N%" (after the word) into c->by; reports errors. */
static void
claims_by(struct ini_src *src, struct suite_claim *c, const char *v,
    const char *rest)
{
	char	num[32];
	size_t	n;
	double	x;

	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (strncmp(rest, "by", 2) != 0)
		goto bad;
	rest += 2;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (strncmp(rest, ">=", 2) != 0)
		goto bad;
	rest += 2;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	n = strcspn(rest, "% \t");
	if (n == 0 || n >= sizeof num || rest[n] != '%' ||
	    rest[n + 1] != '\0')
		goto bad;
	memcpy(num, rest, n);
	num[n] = '\0';
	if (ini_decimal(num, 2, 3, &x) != 0 || !(x > 0) || !(x < 100)) {
		ini_error(src, src->line, "[claim.%s] expect: '%s' is not a "
		    "percentage above 0 and below 100", c->name, num);
		return;
	}
	c->by = x / 100;
	return;
bad:
	ini_error(src, src->line, "[claim.%s] expect: '%.64s' is not one of "
	    CLAIMS_EXPECT_FORMS, c->name, v);
}

/* Parses a benchmarks list ("all" or names, comma separated). */
static void
claims_benches(struct ini_src *src, struct suite_claim *c, const char *v)
{
	const char	*p = v, *e;
	size_t		 len, i;
	char		**na;

	if (strcmp(v, "all") == 0)
		return;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		e = strchr(p, ',');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!ini_name_ok(p, len, PROTO_NAME_MAX)) {
			ini_error(src, src->line, "[claim.%s] benchmarks: bad "
			    "name '%.*s' (want 'all', or names of [bench.NAME] "
			    "sections, comma separated)", c->name,
			    (int)(len > 64 ? 64 : len), p);
			return;
		}
		for (i = 0; i < c->nbenches; i++) {
			if (strlen(c->benches[i]) == len &&
			    memcmp(c->benches[i], p, len) == 0) {
				ini_error(src, src->line, "[claim.%s] "
				    "benchmarks: '%.*s' twice", c->name,
				    (int)len, p);
				return;
			}
		}
		if (c->nbenches >= CLAIMS_BENCHES_MAX) {
			ini_error(src, src->line, "[claim.%s] benchmarks: "
			    "more than %d", c->name, CLAIMS_BENCHES_MAX);
			return;
		}
		if ((na = realloc(c->benches, (c->nbenches + 1) *
		    sizeof *na)) == NULL ||
		    (na[c->nbenches] = strndup(p, len)) == NULL) {
			if (na != NULL)
				c->benches = na;
			ini_error(src, src->line, "out of memory");
			return;
		}
		c->benches = na;
		c->nbenches++;
		if (e == NULL)
			return;
		p = e + 1;
	}
}

void
claims_key(struct ini_src *src, struct suite_claim *c, int k, const char *v)
{
	size_t	len = strlen(v);

	switch (k) {
	case CK_VARIANT:
	case CK_REFERENCE:
		if (!ini_name_ok(v, len, PROTO_NAME_MAX)) {
			ini_error(src, src->line, "[claim.%s] %s: bad name "
			    "'%.64s' (want a [variant.NAME]'s name)", c->name,
			    claims_keys[k], v);
			return;
		}
		if (k == CK_VARIANT) {
			memcpy(c->variant, v, len + 1);
			c->variant_line = src->line;
		} else {
			memcpy(c->reference, v, len + 1);
			c->reference_line = src->line;
		}
		break;
	case CK_BENCHMARKS:
		c->benches_line = src->line;
		claims_benches(src, c, v);
		break;
	case CK_EXPECT:
		c->expect_line = src->line;
		if (strncmp(v, "better", 6) == 0) {
			c->expect = CLAIM_BETTER;
			if (v[6] != '\0')
				claims_by(src, c, v, v + 6);
		} else if (strncmp(v, "worse", 5) == 0) {
			c->expect = CLAIM_WORSE;
			if (v[5] != '\0')
				claims_by(src, c, v, v + 5);
		} else if (strcmp(v, "same") == 0)
			c->expect = CLAIM_SAME;
		else
			ini_error(src, src->line, "[claim.%s] expect: '%.64s' "
			    "is not one of " CLAIMS_EXPECT_FORMS, c->name, v);
		break;
	}
}

void
claims_end(struct ini_src *src, struct suite_claim *c)
{
	if (c->variant_line == 0)
		ini_error(src, c->line, "[claim.%s] missing variant", c->name);
	else if (c->expect_line == 0)
		ini_error(src, c->line, "[claim.%s] missing expect (one of "
		    CLAIMS_EXPECT_FORMS ")", c->name);
}

/* Returns 1 when name is one of s's variants. */
static int
claims_is_variant(const struct suite *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->nvariants; i++) {
		if (strcmp(s->variants[i].name, name) == 0)
			return (1);
	}
	return (0);
}

/* Returns 1 when name is one of s's benchmarks or sweeps. */
static int
claims_is_bench(const struct suite *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->nbenches; i++) {
		if (strcmp(s->benches[i].name, name) == 0 ||
		    strcmp(s->benches[i].sweep, name) == 0)
			return (1);
	}
	return (0);
}

void
claims_finish(struct ini_src *src, struct suite *s)
{
	struct suite_claim	*c;
	const char		*ref = s->nvariants > 0 ?
				    s->variants[s->ref].name : "";
	size_t			 i, j;

	for (i = 0; i < s->nclaims && !src->failed; i++) {
		c = &s->claims[i];
		if (!claims_is_variant(s, c->variant)) {
			ini_error(src, c->variant_line, "[claim.%s] variant "
			    "'%s' is not a variant", c->name, c->variant);
			return;
		}
		if (c->reference_line != 0 &&
		    !claims_is_variant(s, c->reference)) {
			ini_error(src, c->reference_line, "[claim.%s] "
			    "reference '%s' is not a variant", c->name,
			    c->reference);
			return;
		}
		if (strcmp(c->variant, c->reference_line != 0 ?
		    c->reference : ref) == 0) {
			ini_error(src, c->variant_line, "[claim.%s] variant "
			    "'%s' is its reference: a claim compares another "
			    "variant with it", c->name, c->variant);
			return;
		}
		for (j = 0; j < c->nbenches; j++) {
			if (!claims_is_bench(s, c->benches[j])) {
				ini_error(src, c->benches_line, "[claim.%s] "
				    "benchmarks: '%s' is not a [bench.NAME]",
				    c->name, c->benches[j]);
				return;
			}
		}
	}
}

void
claims_free(struct suite *s)
{
	size_t	i, j;

	for (i = 0; i < s->nclaims; i++) {
		for (j = 0; j < s->claims[i].nbenches; j++)
			free(s->claims[i].benches[j]);
		free(s->claims[i].benches);
	}
	free(s->claims);
	s->claims = NULL;
	s->nclaims = 0;
}

void
claims_expect_text(const struct suite_claim *c, char *buf, size_t len)
{
	const char	*w = c->expect == CLAIM_BETTER ? "better" :
			    c->expect == CLAIM_WORSE ? "worse" : "same";

	if (c->by > 0)
		snprintf(buf, len, "%s by >= %g%%", w, c->by * 100);
	else
		snprintf(buf, len, "%s", w);
}


int
claims_covers(const struct suite *s, const struct suite_claim *c,
    const char *bench)
{
	size_t	i, j;

	if (c->nbenches == 0)
		return (1);
	for (i = 0; i < c->nbenches; i++) {
		if (strcmp(c->benches[i], bench) == 0)
			return (1);
		/* A sweep's name covers each of its points. */
		for (j = 0; j < s->nbenches; j++) {
			if (strcmp(s->benches[j].name, bench) == 0 &&
			    strcmp(s->benches[j].sweep, c->benches[i]) == 0)
				return (1);
		}
	}
	return (0);
}
