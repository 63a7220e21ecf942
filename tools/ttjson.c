#include "ttdecode.h"
int ttdecode_json(int argc, char **argv) { (void)argc; (void)argv; return 1; }
