/*
** folio_rank(): FTS5's bm25(), without the pass a one-word search does not need.
**
** bm25 multiplies each word's weight by its IDF, which FTS5 finds by reading the word's whole
** list of documents once per statement (for the last word of a Folio search, a prefix, every
** list that starts with it, merged again). A one-word search has one IDF: a positive constant
** by which every document's score is multiplied, so leaving it out orders the matches exactly
** as bm25 does. With several words the IDFs weigh the words against each other, and this
** computes them as bm25 does. Measured (the bench's 159 search words, the window's statement
** alone): 2.9-3.4 -> 2.0-2.5 ms at 20,000 documents, 80-96 -> 37-44 ms at 1.1 million.
**
** Loaded by Folio (server/src/db/dialect/sqlite-rank.ts) on every SQLite connection, when
** scripts/build-native.mjs could build it; without it Folio ranks with bm25 itself, in the same
** order. Adapted from fts5Bm25Function in SQLite's fts5_aux.c (public domain); the same
** constants, weights per column as arguments.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

typedef struct RankData {
  int nPhrase;      /* phrases in the query */
  double avgdl;     /* average tokens per row */
  double *aIDF;     /* each phrase's IDF (1.0 for a query of one phrase) */
  double *aFreq;    /* each phrase's weighted hits in the current row */
} RankData;

static int countRow(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUserData){
  (void)pApi; (void)pFts;
  (*(sqlite3_int64*)pUserData)++;
  return SQLITE_OK;
}

/* The query's RankData, made at its first row and kept as the query's aux data. */
static int rankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, RankData **ppData){
  int rc = SQLITE_OK;
  RankData *p = (RankData*)pApi->xGetAuxdata(pFts, 0);
  if( p==0 ){
    int i;
    int nPhrase = pApi->xPhraseCount(pFts);
    sqlite3_int64 nRow = 0, nToken = 0;
    sqlite3_int64 nByte = sizeof(RankData) + nPhrase*2*sizeof(double);
    p = (RankData*)sqlite3_malloc64(nByte);
    if( p==0 ) return SQLITE_NOMEM;
    memset(p, 0, (size_t)nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double*)&p[1];
    p->aFreq = &p->aIDF[nPhrase];
    rc = pApi->xRowCount(pFts, &nRow);
    if( rc==SQLITE_OK ) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if( rc==SQLITE_OK ) p->avgdl = nRow>0 ? (double)nToken / (double)nRow : 1.0;
    for(i=0; rc==SQLITE_OK && i<nPhrase; i++){
      sqlite3_int64 nHit = 0;
      if( nPhrase==1 ){
        p->aIDF[i] = 1.0;
        break;
      }
      rc = pApi->xQueryPhrase(pFts, i, (void*)&nHit, countRow);
      if( rc==SQLITE_OK ){
        double idf = log( (nRow - nHit + 0.5) / (nHit + 0.5) );
        p->aIDF[i] = idf<=0.0 ? 1e-6 : idf;
      }
    }
    if( rc!=SQLITE_OK ){
      sqlite3_free(p);
      return rc;
    }
    rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
    if( rc!=SQLITE_OK ) return rc;
  }
  *ppData = p;
  return SQLITE_OK;
}

static void folioRank(
  const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
  int nVal, sqlite3_value **apVal
){
  const double k1 = 1.2;
  const double b = 0.75;
  double score = 0.0;
  double D = 0.0;
  int nInst = 0;
  int i;
  RankData *p = 0;
  int rc = rankData(pApi, pFts, &p);
  if( rc==SQLITE_OK ){
    memset(p->aFreq, 0, sizeof(double) * p->nPhrase);
    rc = pApi->xInstCount(pFts, &nInst);
  }
  for(i=0; rc==SQLITE_OK && i<nInst; i++){
    int ip, ic, io;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if( rc==SQLITE_OK ) p->aFreq[ip] += (nVal > ic) ? sqlite3_value_double(apVal[ic]) : 1.0;
  }
  if( rc==SQLITE_OK ){
    int nTok = 0;
    rc = pApi->xColumnSize(pFts, -1, &nTok);
    D = (double)nTok;
  }
  if( rc==SQLITE_OK ){
    for(i=0; i<p->nPhrase; i++){
      score += p->aIDF[i] * ( (p->aFreq[i] * (k1 + 1.0)) / (p->aFreq[i] + k1 * (1 - b + b * D / p->avgdl)) );
    }
    sqlite3_result_double(pCtx, -1.0 * score);
  }else{
    sqlite3_result_error_code(pCtx, rc);
  }
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_extension_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  fts5_api *fts5 = 0;
  sqlite3_stmt *stmt = 0;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  /* FTS5 hands out its API through a pointer-passing query (SQLite's documented way). */
  rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0);
  if( rc==SQLITE_OK ){
    sqlite3_bind_pointer(stmt, 1, (void*)&fts5, "fts5_api_ptr", 0);
    sqlite3_step(stmt);
    rc = sqlite3_finalize(stmt);
  }
  if( rc==SQLITE_OK && (fts5==0 || fts5->iVersion<2) ){
    if( pzErrMsg ) *pzErrMsg = sqlite3_mprintf("folio_rank: this SQLite has no FTS5 API version 2");
    return SQLITE_ERROR;
  }
  if( rc!=SQLITE_OK ) return rc;
  return fts5->xCreateFunction(fts5, "folio_rank", 0, folioRank, 0);
}
