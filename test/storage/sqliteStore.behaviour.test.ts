import { describeStore } from '../support/storeBehaviour';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

describeStore('SqliteMemoryStore (wa-sqlite, in memory)', ({ clock }) => openNodeStore({ clock }));
