/* What both facts backends (facts-linux.c, facts-darwin.c) and the sysctl
 * parsing (facts-sysctl.c) share: copying a fact, adding an extra one. */
#include <stdio.h>
#include <string.h>

#include "agent/facts.h"
#include "proto/hash.h"

/* Hashes a machine's identity under orch's own prefix (facts.h). */
void
facts_machine_hash(const char *source, const char *id,
    char hex[PROTO_SHA_HEX])
{
	char	buf[256];
	int	n;

	hex[0] = '\0';
	if (id[0] == '\0')
		return;
	/* Named for orch: the same id hashed elsewhere gives another. */
	n = snprintf(buf, sizeof buf, "orch machine\n%s\n%s", source, id);
	if (n < 0 || (size_t)n >= sizeof buf || hash_buf(buf, (size_t)n,
	    hex) != 0)
		hex[0] = '\0';
}

void
facts_copy(char *dst, size_t len, const char *src)
{
	size_t	n = strlen(src);

	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void
facts_extra(struct proto_facts *f, const char *key, const char *value)
{
	struct proto_kv	*kv;

	if (f->nextra >= PROTO_FACTS_EXTRA_MAX)
		return;
	kv = &f->extra[f->nextra++];
	facts_copy(kv->key, sizeof kv->key, key);
	facts_copy(kv->value, sizeof kv->value, value);
}
