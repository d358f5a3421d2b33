#include "CInterrupts.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupt_signal = 0;

static void on_signal(int signal_number) { interrupt_signal = signal_number; }

void wb_interrupt_install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  /* A parent that blocked these signals passes the mask on: unblock them,
     or Ctrl-C would never reach the handler. */
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &signals, NULL);
  /* A closed pipe (events piped into `head`) is a write error, not a reason
     to die with temporary files left behind. */
  signal(SIGPIPE, SIG_IGN);
}

int wb_interrupt_pending(void) { return interrupt_signal != 0; }
int wb_interrupt_signal(void) { return interrupt_signal; }
