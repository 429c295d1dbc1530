// The areas of the admin, in sidebar order.
import type { ComponentType } from 'react';
import { BackupsPage } from './backups/BackupsPage';
import { FoldersPage } from './folders/FoldersPage';
import { MediaPage } from './media/MediaPage';
import { ModelPage } from './model/ModelPage';
import { ObjectsPage } from './objects/ObjectsPage';
import { RelationsPage } from './relations/RelationsPage';
import { RolesPage } from './roles/RolesPage';
import { TrashPage } from './trash/TrashPage';
import { UsersPage } from './users/UsersPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

export interface PageDef {
  path: string;
  label: string;
  component: ComponentType<{ route: string[] }>;
}

export const pages: PageDef[] = [
  { path: 'objects', label: 'Objects', component: ObjectsPage },
  { path: 'folders', label: 'Folders', component: FoldersPage },
  { path: 'media', label: 'Media', component: MediaPage },
  { path: 'trash', label: 'Trash', component: TrashPage },
  { path: 'users', label: 'Users', component: UsersPage },
  { path: 'roles', label: 'Roles', component: RolesPage },
  { path: 'relations', label: 'Relations', component: RelationsPage },
  { path: 'model', label: 'Object types', component: ModelPage },
  { path: 'webhooks', label: 'Webhooks', component: WebhooksPage },
  { path: 'backups', label: 'Backups', component: BackupsPage },
];
