#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "verlpp/reward/verlpp_reward_abi.h"
int verlpp_reward_abi_version(void) { return VERLPP_REWARD_ABI_VERSION; }
#define ARGS const char* ds, const char* s, const char* gt, const char* ei, const char** names, double* values, int cap
#define UNUSED (void)ds;(void)s;(void)gt;(void)ei;(void)cap
/* dup of a non-score name */
int dupfmt_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="format";values[1]=1;names[2]="format";values[2]=0;return 3;}
/* same value twice */
int dupsame_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="score";values[1]=1;return 2;}
/* case differs only */
int casediff_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="Score";values[1]=2;return 2;}
/* trailing space */
int space_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="score ";values[1]=2;return 2;}
/* empty name twice */
int empty_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="";values[1]=2;names[2]="";values[2]=3;return 3;}
/* one empty name */
int oneempty_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="";values[1]=2;return 2;}
/* null name pointer */
int nullname_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]=NULL;values[1]=2;return 2;}
/* count larger than capacity */
int overcap_named(ARGS){UNUSED; for(int i=0;i<cap;i++){names[i]="score";values[i]=1;} return cap+5;}
/* dup only on some rows (response holding a digit '4') */
int somerows_named(ARGS){(void)ds;(void)gt;(void)ei;(void)cap; names[0]="score";values[0]=1; if(strchr(s,'4')||1){names[1]="x";values[1]=1;names[2]=(strlen(s)%2)?"x":"y";values[2]=2;} return 3;}
/* 64 distinct names at capacity */
static char buf[64][8];
int full_named(ARGS){UNUSED; for(int i=0;i<64;i++){ if(i==0) names[i]="score"; else {snprintf(buf[i],8,"k%d",i); names[i]=buf[i];} values[i]=i;} return 64;}
/* zero names */
int zero_named(ARGS){UNUSED; (void)names;(void)values; return 0;}
/* dup with utf8 name */
int utf8dup_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="résumé";values[1]=1;names[2]="résumé";values[2]=2;return 3;}
/* names that are NFC vs NFD of same visible text */
int nfc_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="\xc3\xa9";values[1]=1;names[2]="e\xcc\x81";values[2]=2;return 3;}
/* invalid utf-8 name */
int badutf_named(ARGS){UNUSED; names[0]="score";values[0]=1;names[1]="\xff\xfe";values[1]=1;return 2;}
/* huge name */
static char big[100001];
int bigname_named(ARGS){UNUSED; memset(big,'a',100000); big[100000]=0; names[0]="score";values[0]=1;names[1]=big;values[1]=1;names[2]=big;values[2]=2;return 3;}
