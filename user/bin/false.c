/* false: do nothing, unsuccessfully. */
int main(void)
{
	return 1;
}
