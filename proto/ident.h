/*
 * Identifiers: run ids, host, group, bench, variant and metric names.
 * One rule everywhere they enter (suite, inventory, record, wire): 1 to
 * size-1 bytes of [A-Za-z0-9_.-], not starting with '-' or '.', so that
 * a name is never an option, never "." or "..", and never needs quoting.
 */
#ifndef PROTO_IDENT_H
#define PROTO_IDENT_H

#include <stddef.h>

/* Returns 1 when s[0..len) is a valid identifier shorter than size. */
int	ident_ok(const char *s, size_t len, size_t size);

/* As ident_ok, for a NUL-terminated string. */
int	ident_str_ok(const char *s, size_t size);

#endif
