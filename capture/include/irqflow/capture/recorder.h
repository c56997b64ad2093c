/* Live recording of kvm:* tracepoints into a trace.dat (v6), through a private
 * tracefs instance so the top-level buffer other tools may use is never touched. */
#ifndef IRQFLOW_CAPTURE_RECORDER_H
#define IRQFLOW_CAPTURE_RECORDER_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct irqflow_record_opts {
    const char *output;      /* trace.dat to write */
    double duration_s;       /* stop after this long (<= 0: when the command exits) */
    int pid;                 /* record only this process's threads (0: all) */
    char *const *argv;       /* command to run and trace (NULL: none) */
    int buffer_kb;           /* per-CPU ring buffer size (0: 8192) */
};

enum irqflow_record_status {
    IRQFLOW_RECORD_OK = 0,
    IRQFLOW_RECORD_FAILED = 1,      /* recording started but something broke */
    IRQFLOW_RECORD_UNAVAILABLE = 2, /* not root, no tracefs, no kvm events, bad pid, output not creatable */
    IRQFLOW_RECORD_NO_COMMAND = 3,  /* argv could not be started (exec failed); nothing written */
};

/* One host CPU's ring buffer at the end, from tracefs per_cpu/cpuN/stats. */
struct irqflow_record_cpu {
    unsigned long long recorded;  /* "read events": taken out of the buffer into the file */
    unsigned long long overrun;   /* overwritten before they were read: lost */
    unsigned long long dropped;   /* "dropped events": not even written (buffer full): lost */
};

struct irqflow_record_result {
    unsigned long long overrun;   /* events lost (overrun + dropped, sum over CPUs) */
    int cpus;
    int command_status;           /* exit status of argv, or -1 */
    int command_stopped;          /* argv still ran when the recording ended: sent SIGTERM */
    int stopped_by;               /* SIGINT / SIGTERM that ended the recording early, or 0 */
    struct irqflow_record_cpu *per_cpu; /* cpus entries (NULL on failure); irqflow_record_free */
};

/* Records; on failure writes a one-line reason (naming the path and errno) into err and
 * leaves no output file, no .cpuN files and no tracefs instance behind. SIGINT and
 * SIGTERM during the recording stop it: the file is written as for the end of the
 * duration, and result->stopped_by says so. */
int irqflow_record(const struct irqflow_record_opts *opts, struct irqflow_record_result *result,
                   char *err, size_t errlen);
void irqflow_record_free(struct irqflow_record_result *result);

#ifdef __cplusplus
}
#endif
#endif
