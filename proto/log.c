/* Logging to stderr, one line per call, safe to call from several threads. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/log.h"

static const char	*log_prog = "orch";
static int		 log_lvl = LOG_INFO;
static pthread_mutex_t	 log_mtx = PTHREAD_MUTEX_INITIALIZER;
static void		(*log_hook)(int);

void
log_init(const char *progname, int level)
{
	log_prog = progname;
	log_lvl = level;
}

int
log_level(void)
{
	return (log_lvl);
}

void
log_set_hook(void (*fn)(int))
{
	pthread_mutex_lock(&log_mtx);
	log_hook = fn;
	pthread_mutex_unlock(&log_mtx);
}

static void log_vwrite(int, const char *, const char *, va_list)
    __attribute__((format(printf, 3, 0)));

static void
log_vwrite(int level, const char *suffix, const char *fmt, va_list ap)
{
	char		 line[2048], when[32];
	struct timespec	 ts;
	struct tm	 tm;
	time_t		 sec;

	if (level > log_lvl)
		return;
	vsnprintf(line, sizeof line, fmt, ap);
	pthread_mutex_lock(&log_mtx);
	if (log_hook != NULL)
		log_hook(1);
	/*
	 * -v: ISO 8601 UTC to the millisecond, the same on every host, so
	 * the coordinator's and the agents' logs read side by side.
	 */
	if (log_lvl >= LOG_DEBUG) {
		clock_gettime(CLOCK_REALTIME, &ts);
		sec = ts.tv_sec;
		gmtime_r(&sec, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ldZ ", when, ts.tv_nsec / 1000000);
	}
	if (suffix != NULL)
		fprintf(stderr, "%s: %s: %s\n", log_prog, line, suffix);
	else
		fprintf(stderr, "%s: %s\n", log_prog, line);
	if (log_hook != NULL)
		log_hook(0);
	fflush(stderr);
	pthread_mutex_unlock(&log_mtx);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_DEBUG, NULL, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	va_start(ap, fmt);
	log_vwrite(LOG_WARN, strerror(saved), fmt, ap);
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARN, NULL, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	va_start(ap, fmt);
	log_vwrite(LOG_FATAL, strerror(saved), fmt, ap);
	va_end(ap);
	exit(3);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(LOG_FATAL, NULL, fmt, ap);
	va_end(ap);
	exit(3);
}
