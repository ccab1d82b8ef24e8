/* noop: does nothing; for measuring the harness floor. */
int
main(void)
{
	return (0);
}
