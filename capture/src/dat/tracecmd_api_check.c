/* Compile-time only: lets the C compiler compare our declarations in tracecmd_api.h
 * with libtracecmd's own headers. A mismatch is a build error ("conflicting types"). */
#include <trace-cmd/trace-cmd.h>

#include "tracecmd_api.h"

/* The private header is not installed by Debian; these must match trace-cmd 3.1.6. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
