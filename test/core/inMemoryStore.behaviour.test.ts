import { describeStore } from '../support/storeBehaviour';
import { InMemoryStore } from '../../src/core/base/InMemoryStore';

describeStore('InMemoryStore', async ({ clock }) => new InMemoryStore({ clock }));
