/* Logging for both programs (OpenSMTPD style). */
#ifndef PROTO_LOG_H
#define PROTO_LOG_H

#include <stdarg.h>

#define LOG_FATAL	0
#define LOG_WARN	1
#define LOG_INFO	2
#define LOG_DEBUG	3

/* Sets the program name printed before each line and the verbosity. */
void	log_init(const char *progname, int level);
int	log_level(void);
/*
 * Sets fn, called as fn(1) before each line is written and fn(0) after,
 * under the log's lock: a display redrawn on a terminal clears itself
 * first, so that no line lands in it. NULL removes it.
 */
void	log_set_hook(void (*fn)(int));

void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
/* _warn appends strerror(errno); _warnx does not. */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Only main() and the top of a program's loop may call these. */
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
