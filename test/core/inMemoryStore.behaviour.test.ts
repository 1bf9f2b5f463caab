import { describeStore } from '../support/storeBehaviour';
import { InMemoryStore } from '../support/InMemoryStore';

describeStore('InMemoryStore', async ({ clock }) => new InMemoryStore({ clock }));
