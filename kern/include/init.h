/* Boot-time globals and the boot's last stop. */
#ifndef INIT_H
#define INIT_H

#include <compiler.h>

extern char boot_cmdline[1024];
extern const struct multiboot_info *boot_mbi;
extern uint64_t boot_modules_end;	/* physical end of the boot modules */

#endif /* INIT_H */
