export class RequestLog {
    store;
    journal;
    newDatabase;
    constructor(store, journal, 
    /** The database was created by this run and holds no request yet: the first read needs only the journal. */
    newDatabase = false) {
        this.store = store;
        this.journal = journal;
        this.newDatabase = newDatabase;
    }
    async requestTimes(scope, sinceMs) {
        const skipDatabase = this.newDatabase;
        this.newDatabase = false; // later reads find this run's own requests moved there
        const rows = skipDatabase ? [] : await this.store.read((db) => db.all(`SELECT request_id AS id, epoch_ms(started_at) AS ms FROM request_log
          WHERE scope = $scope AND started_at > $since::TIMESTAMPTZ`, { scope, since: new Date(sinceMs).toISOString() }));
        const inDatabase = new Set(rows.flatMap((r) => (r.id === null ? [] : [r.id])));
        const journalled = this.journal
            .lines()
            .filter((l) => l.scope === scope && l.started_ms > sinceMs && !inDatabase.has(l.id))
            .map((l) => l.started_ms);
        return [...rows.map((r) => Number(r.ms)), ...journalled];
    }
}
//# sourceMappingURL=request-log.js.map