/*
 * The `key=value` convention: numeric lines of a program's stdout are
 * metrics.
 */
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
 *  - else when key is one of the nkeys keys (the metrics the suite names),
 *    value must be a finite plain decimal number, added to s->metrics
 *    (metrics past PROTO_METRICS_MAX are not kept);
 *  - any other line is output, ignored.
 * A sample with a bad line of a named metric must fail, not lose the value
 * in silence: text (such as "1.2.3" or "fast"), a number that is not a
 * finite decimal (NaN, inf, 1e999, 0x10, ".5"), a key printed twice, or a
 * built-in metric's key (wall_ns, user_ns, sys_ns, maxrss_kb, nvcsw,
 * nivcsw) is an error.
 * Returns 1 when the line was used, 0 when ignored, -1 on an error with
 * the reason (naming the key and the value) in err[errlen].
 */
int	metrics_line(struct proto_sample *s, const char *line, size_t len,
	    const char *checksum_key, char *const *keys, size_t nkeys,
	    char *err, size_t errlen);

/* Returns 1 when name is one of the built-in metrics, else 0. */
int	metrics_builtin(const char *name);

#endif
