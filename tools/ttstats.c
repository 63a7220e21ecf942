#include "ttdecode.h"
int ttdecode_stats(int argc, char **argv) { (void)argc; (void)argv; return 1; }
