/*
 * orch-null: the harness floor. It does nothing, so its wall time is what
 * running any program through orch costs: spawning, waiting, collecting.
 * Built static where the system allows, so dynamic loading is not counted.
 */
int
main(void)
{
	return (0);
}
