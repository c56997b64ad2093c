/* Part of the guest workload (samples/guest-workload.sh, irqflow.illegal_ipi=1): sends
 * one fixed IPI with vector 0x0f — an exception's vector, which the SDM has the sending
 * APIC refuse ("send illegal vector" in ESR) — to APIC id 1, by writing the x2APIC ICR
 * (MSR 0x830) through /dev/cpu/0/msr. KVM accepts it anyway: a real host-side finding
 * (VECTOR-ILLEGAL) in a real run, for `irqflow record --check --fail-fast`.
 * Static build: gcc -O2 -static -o illegal-ipi illegal-ipi.c */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    const uint64_t icr = (1ULL << 32) /* destination APIC id 1 */ | (1u << 14) /* assert */ | 0x0f /* vector */;
    int fd = open("/dev/cpu/0/msr", O_WRONLY);
    if (fd < 0) {
        perror("illegal-ipi: /dev/cpu/0/msr");
        return 1;
    }
    if (pwrite(fd, &icr, sizeof icr, 0x830) != (ssize_t)sizeof icr) {
        perror("illegal-ipi: write of the x2APIC ICR");
        return 1;
    }
    close(fd);
    puts("illegal-ipi: sent vector 0x0f to APIC id 1");
    return 0;
}
