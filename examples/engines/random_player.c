/*
 * A random legal player for gamehub's stdio protocol, for all three
 * games (docs/protocols/engines.md): it reads each request line, finds
 * its "legal" array, and answers {"action": ONE} with one of its
 * elements picked at random, copied as it is.
 *
 *     cc -O2 -o random_player random_player.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The end of the JSON value starting at p (an array, object, string or
   scalar), or NULL if the line ends first. */
static const char *valueEnd(const char *p)
{
    int depth = 0, inString = 0;
    for (; *p; p++) {
        if (inString) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                inString = 0;
        } else if (*p == '"') {
            inString = 1;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if (*p == ']' || *p == '}') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (*p == ',' && depth == 0) {
            return p;
        }
    }
    return NULL;
}

/* Answer one request: a random element of its "legal" array. */
static int answer(const char *line)
{
    const char *p = strstr(line, "\"legal\":[");
    const char *starts[4096], *ends[4096];
    int count = 0;
    if (p == NULL)
        return -1;
    p += strlen("\"legal\":[");
    while (*p && *p != ']' && count < 4096) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *end = valueEnd(p);
        if (end == NULL)
            return -1;
        starts[count] = p;
        ends[count++] = end;
        p = end;
    }
    if (count == 0)
        return -1;
    int pick = rand() % count;
    printf("{\"action\":%.*s,\"debug\":\"%d legal\"}\n",
           (int)(ends[pick] - starts[pick]), starts[pick], count);
    fflush(stdout);
    return 0;
}

int main(void)
{
    char *line = NULL;
    size_t size = 0;
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    while (getline(&line, &size, stdin) > 0) {
        if (answer(line) != 0) {
            printf("{\"debug\":\"no legal actions in the request\"}\n");
            fflush(stdout);
        }
    }
    free(line);
    return 0;
}
