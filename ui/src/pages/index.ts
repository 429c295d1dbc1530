// The areas of the admin, in sidebar order.
import type { ComponentType } from 'react';
import { ObjectsPage } from './objects/ObjectsPage';
import { RolesPage } from './roles/RolesPage';
import { UsersPage } from './users/UsersPage';

export interface PageDef {
  path: string;
  label: string;
  component: ComponentType<{ route: string[] }>;
}

export const pages: PageDef[] = [
  { path: 'objects', label: 'Objects', component: ObjectsPage },
  { path: 'users', label: 'Users', component: UsersPage },
  { path: 'roles', label: 'Roles', component: RolesPage },
];
