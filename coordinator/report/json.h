/* A small JSON writer: strings escaped per RFC 8259, numbers deterministic. */
#ifndef COORDINATOR_JSON_H
#define COORDINATOR_JSON_H

#include <stdio.h>

/*
 * Writes s as a JSON string with quotes, always valid UTF-8: a byte that
 * is not part of well-formed UTF-8 is written \ufffd.
 */
void	json_str(FILE *f, const char *s);

/* Writes a number; NAN and infinities become null. */
void	json_num(FILE *f, double v);

#endif
