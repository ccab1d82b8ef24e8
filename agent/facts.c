/* What both facts backends (facts-linux.c, facts-darwin.c) and the sysctl
 * parsing (facts-sysctl.c) share: copying a fact, adding an extra one. */
#include <string.h>

#include "agent/facts.h"

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
