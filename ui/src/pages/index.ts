// The areas of the admin, in sidebar order.
import type { ComponentType } from 'react';
import { BackupsPage } from './backups/BackupsPage';
import { FoldersPage } from './folders/FoldersPage';
import { MediaPage } from './media/MediaPage';
import { ModelPage } from './model/ModelPage';
import { ObjectsPage } from './objects/ObjectsPage';
import { ProfilePage } from './profile/ProfilePage';
import { RelationsPage } from './relations/RelationsPage';
import { RolesPage } from './roles/RolesPage';
import { TrashPage } from './trash/TrashPage';
import { UsersPage } from './users/UsersPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

export interface PageDef {
  path: string;
  label: string;
  component: ComponentType<{ route: string[] }>;
  /** Only admins use it (the API answers 403 to anyone else): not shown to others. */
  adminOnly?: boolean;
  /** Reached from elsewhere (the user's name in the top bar), not from the sidebar. */
  hidden?: boolean;
}

export const pages: PageDef[] = [
  { path: 'objects', label: 'Objects', component: ObjectsPage },
  { path: 'folders', label: 'Folders', component: FoldersPage },
  { path: 'media', label: 'Media', component: MediaPage },
  { path: 'trash', label: 'Trash', component: TrashPage, adminOnly: true },
  { path: 'users', label: 'Users', component: UsersPage, adminOnly: true },
  { path: 'roles', label: 'Roles', component: RolesPage, adminOnly: true },
  { path: 'relations', label: 'Relations', component: RelationsPage, adminOnly: true },
  { path: 'model', label: 'Object types', component: ModelPage, adminOnly: true },
  { path: 'webhooks', label: 'Webhooks', component: WebhooksPage, adminOnly: true },
  { path: 'backups', label: 'Backups', component: BackupsPage, adminOnly: true },
  { path: 'profile', label: 'My account', component: ProfilePage, hidden: true },
];
