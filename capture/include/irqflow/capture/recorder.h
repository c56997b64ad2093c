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
    IRQFLOW_RECORD_UNAVAILABLE = 2, /* not root, no tracefs, no kvm events, bad pid */
};

struct irqflow_record_result {
    unsigned long long overrun;   /* events the kernel dropped (sum over CPUs) */
    int cpus;
    int command_status;           /* exit status of argv, or -1 */
};

/* Records; on failure writes a one-line reason into err. */
int irqflow_record(const struct irqflow_record_opts *opts, struct irqflow_record_result *result,
                   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
