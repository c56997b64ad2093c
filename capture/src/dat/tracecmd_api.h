/* The libtracecmd calls irqflow uses, declared for C++.
 *
 * <trace-cmd.h> pulls in <tracefs.h>, which does not compile as C++ (it passes an int
 * where an enum is expected). Some calls we need are exported by libtracecmd but only
 * declared in its private header. tracecmd_api_check.c includes both this file and the
 * library headers, so the C compiler verifies every prototype here. */
#ifndef IRQFLOW_TRACECMD_API_H
#define IRQFLOW_TRACECMD_API_H

#include <traceevent/event-parse.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tracecmd_input;

struct tracecmd_input *tracecmd_open(const char *file, int flags);
struct tracecmd_input *tracecmd_open_head(const char *file, int flags);
void tracecmd_close(struct tracecmd_input *handle);
struct tep_handle *tracecmd_get_tep(struct tracecmd_input *handle);
int tracecmd_buffer_instances(struct tracecmd_input *handle);
const char *tracecmd_buffer_instance_name(struct tracecmd_input *handle, int indx);
struct tracecmd_input *tracecmd_buffer_instance_handle(struct tracecmd_input *handle, int indx);
int tracecmd_iterate_events_multi(struct tracecmd_input **handles, int nr_handles,
                                  int (*callback)(struct tracecmd_input *handle,
                                                  struct tep_record *, int, void *),
                                  void *callback_data);
void tracecmd_set_loglevel(enum tep_loglevel level);

void tracecmd_free_record(struct tep_record *record);

/* exported, declared only in trace-cmd-private.h (trace-cmd 3.1.x) */
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle, int *rec_cpu);
struct tep_record *tracecmd_peek_next_data(struct tracecmd_input *handle, int *rec_cpu);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);

#ifdef __cplusplus
}
#endif
#endif
