/* The `key=value` convention: numeric lines of a program's stdout are metrics. */
#ifndef AGENT_METRICS_H
#define AGENT_METRICS_H

#include <stddef.h>

#include "proto/proto.h"

/*
 * Looks at one line of output (without its newline; not NUL-terminated).
 * `key=value` (blanks around either allowed) where key is
 * [A-Za-z_][A-Za-z0-9_.-]* up to PROTO_NAME_MAX-1 chars:
 *  - when key equals checksum_key (non-NULL, non-empty), value is kept as
 *    the sample's checksum string (last one wins);
 *  - else when value is a finite number (strtod, whole value), it is added
 *    to s->metrics, replacing an earlier value of the same key; keys of the
 *    built-in metrics (wall_ns, user_ns, sys_ns, maxrss_kb, nvcsw, nivcsw)
 *    are ignored, and so are metrics past PROTO_METRICS_MAX.
 * Returns 1 when the line was used, 0 when ignored.
 */
int	metrics_line(struct proto_sample *s, const char *line, size_t len,
	    const char *checksum_key);

/* Returns 1 when name is one of the built-in metrics, else 0. */
int	metrics_builtin(const char *name);

#endif
