/* Ctrl-C and SIGTERM as a flag, apart from the Lua VM: the frame loop reads
 * it through the Swift Interrupts module, and the Lua count hook reads it to
 * stop a script at its current line. */
#ifndef WB_INTERRUPTS_H
#define WB_INTERRUPTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs SIGINT/SIGTERM handlers that only set a flag, and ignores SIGPIPE. */
void wb_interrupt_install(void);
int wb_interrupt_pending(void);
/* The signal that set the flag (SIGINT or SIGTERM), 0 while none has. */
int wb_interrupt_signal(void);

#ifdef __cplusplus
}
#endif

#endif
