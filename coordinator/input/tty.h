/*
 * The one sanitizer of text from a record, an agent, a remote command or
 * a benchmark before it reaches a terminal, and the UTF-8 reader it and
 * the JSON writer share.
 */
#ifndef COORDINATOR_INPUT_TTY_H
#define COORDINATOR_INPUT_TTY_H

#include <stddef.h>
#include <stdio.h>

/*
 * Returns the length (1 to 4) of the well-formed UTF-8 character that s
 * starts with, or 0 when it starts none (a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, a sequence cut short or
 * NUL).
 */
size_t	tty_utf8_len(const char *s);

/*
 * Makes s safe for a terminal in place: each C0 control (newlines and
 * tabs too), DEL, UTF-8-encoded C1 control (U+0080 to U+009F: a terminal
 * takes U+009B for CSI) and byte that is not part of well-formed UTF-8
 * becomes one '?'; other UTF-8 stays. With lines, a newline stays (a
 * remote's stderr of several lines). Returns s.
 */
char	*tty_clean(char *s, int lines);

/* Writes s to f as tty_clean would make it. */
void	tty_write(FILE *f, const char *s);

#endif
