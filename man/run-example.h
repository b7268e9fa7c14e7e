/* Run a man page's EXAMPLES program as a TAP test.
   SPDX-License-Identifier: LGPL-2.1-or-later

   man/extract-examples.sh --tap writes a C file that holds the program
   with its main() renamed fdevents_example_main(), then defines
   EXAMPLE_PAGE (the page's name) and EXAMPLE_FALLBACK (the text the
   program prints when the kernel lacks the fdevents series) and includes
   this file, which supplies the real main().

   The program runs in a child whose output comes back through a pipe and
   is shown as TAP comments.  Test points:
     1  the program exits with status 0 within EXAMPLE_TIMEOUT seconds;
     2  (only if EXAMPLE_FALLBACK is not empty) with FDEVENTS_KERNEL=patched,
        as in the QEMU guest, it did not take its fallback path; elsewhere
        the point is skipped if it did.  */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXAMPLE_TIMEOUT 60

int
main (void)
{
  const char *kernel = getenv ("FDEVENTS_KERNEL");
  int patched = kernel != NULL && strcmp (kernel, "patched") == 0;
  int pfd[2], status, fallback = 0, passed;
  char line[1024];
  FILE *out;
  pid_t pid;

  int has_fallback = EXAMPLE_FALLBACK[0] != '\0';

  printf ("1..%d\n", has_fallback ? 2 : 1);
  fflush (stdout);
  if (pipe (pfd) != 0)
    {
      printf ("Bail out! pipe: %s\n", strerror (errno));
      return 1;
    }
  pid = fork ();
  if (pid == -1)
    {
      printf ("Bail out! fork: %s\n", strerror (errno));
      return 1;
    }
  if (pid == 0)
    {
      close (pfd[0]);
      if (dup2 (pfd[1], STDOUT_FILENO) == -1
	  || dup2 (pfd[1], STDERR_FILENO) == -1)
	_exit (127);
      close (pfd[1]);
      alarm (EXAMPLE_TIMEOUT);
      exit (fdevents_example_main ());
    }
  close (pfd[1]);
  out = fdopen (pfd[0], "r");
  if (out == NULL)
    {
      printf ("Bail out! fdopen: %s\n", strerror (errno));
      return 1;
    }
  while (fgets (line, sizeof line, out) != NULL)
    {
      size_t len = strlen (line);

      printf ("# %s%s", line, len > 0 && line[len - 1] == '\n' ? "" : "\n");
      if (has_fallback && strstr (line, EXAMPLE_FALLBACK) != NULL)
	fallback = 1;
    }
  fclose (out);
  if (waitpid (pid, &status, 0) != pid)
    {
      printf ("Bail out! waitpid: %s\n", strerror (errno));
      return 1;
    }

  passed = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (passed)
    printf ("ok 1 - %s: the EXAMPLES program exits with status 0\n",
	    EXAMPLE_PAGE);
  else if (WIFSIGNALED (status))
    printf ("not ok 1 - %s: the EXAMPLES program was killed by signal %d"
	    " (%s)%s\n", EXAMPLE_PAGE, WTERMSIG (status),
	    strsignal (WTERMSIG (status)),
	    WTERMSIG (status) == SIGALRM ? ": it ran too long" : "");
  else
    printf ("not ok 1 - %s: the EXAMPLES program exits with status %d\n",
	    EXAMPLE_PAGE, WEXITSTATUS (status));

  if (!has_fallback)
    ;
  else if (!fallback)
    printf ("ok 2 - %s: the program used the fdevents series' feature\n",
	    EXAMPLE_PAGE);
  else if (patched)
    {
      printf ("not ok 2 - %s: FDEVENTS_KERNEL=patched, but the program"
	      " took its fallback path (\"%s\")\n", EXAMPLE_PAGE,
	      EXAMPLE_FALLBACK);
      passed = 0;
    }
  else
    printf ("ok 2 # SKIP %s: kernel without the fdevents series, the"
	    " program took its fallback path (checked in the QEMU guest)\n",
	    EXAMPLE_PAGE);
  fflush (stdout);
  return passed ? 0 : 1;
}
