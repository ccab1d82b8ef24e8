/* crash: prints a line, then dies of SIGSEGV (no core file). */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

int
main(void)
{
	struct rlimit	rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	printf("before_crash=1\n");
	fflush(stdout);
	raise(SIGSEGV);
	return (0);
}
